// Release discovery (folder listings, the release-list cache), component roles and the layout
// checks of redist manifests: the pure parts, fed real-looking and hostile input.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>

#include "install/catalog.h"
#include "install/plan.h"
#include "install/redist_manifest.h"
#include "install/release_list.h"

using namespace cudaenv;

namespace {

std::string source_file(const std::string& relative) {
  std::ifstream in(std::string(CUDAENV_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

ReleaseCatalog shipped_releases() {
  auto releases = parse_release_catalog(source_file("manifests/redist-releases.toml"), "redist-releases.toml");
  REQUIRE(releases.ok());
  return *releases;
}

ProfileCatalog shipped_profiles() {
  auto profiles = parse_profile_catalog(source_file("manifests/redist-profiles.toml"), "redist-profiles.toml");
  REQUIRE(profiles.ok());
  return *profiles;
}

// NVIDIA's index page: a table whose rows hold a link, a size and a date (the shape of
// https://developer.download.nvidia.com/compute/cuda/redist/).
const char* kNvidiaListing = R"(<!DOCTYPE html>
<html><head><title>Index of /compute/cuda/redist</title></head>
<body><h1>Index of /compute/cuda/redist</h1>
<table class="listing">
<tr><td>-</td><td><a href="../">..</a></td></tr>
<tr><td>-</td><td><a href='cuda_cccl/'>cuda_cccl/</a></td></tr>
<tr><td>-</td><td><a href='redistrib_11.0.3.json'>redistrib_11.0.3.json</a></td><td>4.0KB</td><td>2021-03-23 01:38</td></tr>
<tr><td>-</td><td><a href='redistrib_12.9.1.json'>redistrib_12.9.1.json</a></td><td>56KB</td><td>2025-06-05 16:00</td></tr>
<tr><td>-</td><td><a href='redistrib_13.4.0.json'>redistrib_13.4.0.json</a></td><td>48KB</td><td>2026-03-01 10:00</td></tr>
<tr><td>-</td><td><a href='redistrib_13.10.0.json'>redistrib_13.10.0.json</a></td><td>48KB</td><td>2027-03-01 10:00</td></tr>
<tr><td>-</td><td><a href='redistrib_12.1.1.json'>redistrib_12.1.1.json</a></td><td>54KB</td><td>2023-04-19 12:00</td></tr>
</table></body></html>)";

// nginx autoindex (`autoindex on;`): a <pre> block of links padded with spaces.
const char* kNginxListing = R"(<html>
<head><title>Index of /cuda-redist/</title></head>
<body>
<h1>Index of /cuda-redist/</h1><hr><pre><a href="../">../</a>
<a href="cuda_nvcc/">cuda_nvcc/</a>                                         01-Dec-2026 09:00                   -
<a href="cudaenv-mirror.json">cudaenv-mirror.json</a>                                01-Dec-2026 09:00                1234
<a href="redistrib_12.6.0.json">redistrib_12.6.0.json</a>                              01-Dec-2026 09:00               51765
</pre><hr></body>
</html>)";

// Apache mod_autoindex (FancyIndexing with HTMLTable): sort links with queries, icons, a table.
const char* kApacheListing = R"(<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<html><head><title>Index of /redist</title></head><body>
<h1>Index of /redist</h1>
<table>
<tr><th valign="top"><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th></tr>
<tr><td valign="top"><img src="/icons/back.gif" alt="[PARENTDIR]"></td><td><a href="/">Parent Directory</a></td></tr>
<tr><td valign="top"><img src="/icons/text.gif" alt="[TXT]"></td><td><A HREF="redistrib_12.4.0.json">redistrib_12.4.0.json</A></td><td align="right">2024-03-05 17:04  </td><td align="right"> 44K</td></tr>
<tr><td valign="top"><img src="/icons/text.gif" alt="[TXT]"></td><td><a href=redistrib_12.4.1.json>redistrib_12.4.1.json</a></td><td align="right">2024-04-18 19:24  </td><td align="right"> 44K</td></tr>
</table></body></html>)";

std::string artifact(const std::string& path, char digit = 'a', const std::string& size = "10") {
  return R"({"relative_path": ")" + path + R"(", "sha256": ")" + std::string(64, digit) + R"(", "size": ")" + size + "\"}";
}

std::string one_component(const std::string& key, const std::string& path) {
  return "{\"" + key + "\": {\"name\": \"x\", \"version\": \"1.0\", \"linux-x86_64\": " + artifact(path) + "}}";
}

}  // namespace

TEST_CASE("listing: NVIDIA's index page gives every real label, newest first") {
  CHECK(parse_redist_listing(kNvidiaListing) == std::vector<std::string>{"13.10.0", "13.4.0", "12.9.1", "12.1.1", "11.0.3"});
}

TEST_CASE("listing: nginx autoindex and Apache listings") {
  CHECK(parse_redist_listing(kNginxListing) == std::vector<std::string>{"12.6.0"});
  CHECK(parse_redist_listing(kApacheListing) == std::vector<std::string>{"12.4.1", "12.4.0"});
}

TEST_CASE("listing: only canonical 3-part labels of redistrib_*.json links count") {
  CHECK(label_from_file_name("redistrib_12.1.1.json") == "12.1.1");
  for (const char* name :
       {"redistrib_12.1.json", "redistrib_12.1.1.1.json", "redistrib_012.1.1.json", "redistrib_12.1.1.json.exe",
        "redistrib_.json", "redistrib_12.1.x.json", "redistrib_99999999999.1.1.json", "redistrib_-1.1.1.json",
        "xredistrib_12.1.1.json", "redistrib_12.1.1.jsonx", "redistrib_12..1.json"}) {
    INFO(name);
    CHECK(!label_from_file_name(name));
  }
  // Where a link points does not matter, only the name it ends in; each label counts once.
  CHECK(parse_redist_listing(R"(<a href="https://elsewhere.example/x/redistrib_12.2.0.json?x=1#y">a</a>
                                <a href = "redistrib_12.2.0.json">b</a> <a HREF='../redistrib_12.3.0.json'>)") ==
        std::vector<std::string>{"12.3.0", "12.2.0"});
}

TEST_CASE("listing: hostile HTML gives an answer, never a crash") {
  CHECK(parse_redist_listing("").empty());
  CHECK(parse_redist_listing("href").empty());
  CHECK(parse_redist_listing("href=").empty());
  CHECK(parse_redist_listing("<a href=\"redistrib_12.1.1.json").size() == 1);  // unterminated quote
  CHECK(parse_redist_listing("<a href='").empty());
  CHECK(parse_redist_listing(std::string("<a href=\"redistrib_12.1.1.json\0\">", 33)).empty());
  CHECK(parse_redist_listing("redistrib_12.1.1.json in text, not a link").empty());
  CHECK(parse_redist_listing(std::string(100000, '<') + std::string(100000, '"')).empty());
  std::string many;
  for (int i = 0; i < 2000; ++i) many += "<a href=redistrib_12.1." + std::to_string(i) + ".json>";
  CHECK(parse_redist_listing(many).size() == 2000);
  std::mt19937 random(42);
  for (int round = 0; round < 200; ++round) {
    std::string noise(2000, '\0');
    for (char& c : noise) c = "href=\"'<> /redistrib_0123.json"[random() % 31];
    for (const std::string& label : parse_redist_listing(noise)) CHECK(label_from_file_name("redistrib_" + label + ".json"));
  }
}

TEST_CASE("discovered catalog: stubs and the 13.4.0 preview are never offered; pins come from the shipped list") {
  ReleaseCatalog shipped = shipped_releases();
  std::vector<ListedRelease> listed;
  for (const std::string& label : parse_redist_listing(kNvidiaListing)) listed.push_back({label, std::nullopt});
  ReleaseCatalog found = catalog_from_listing(listed, "https://m.example/", shipped);
  std::vector<std::string> labels;
  for (const Release& release : found.releases) labels.push_back(release.label);
  CHECK(labels == std::vector<std::string>{"13.10.0", "12.9.1", "12.1.1"});
  CHECK(found.find("12.1.1")->sha256 == shipped.find("12.1.1")->sha256);
  CHECK(found.find("12.1.1")->date == "2023-04-19");  // from the shipped list
  CHECK(!found.find("13.10.0")->sha256);              // newer than the pins
  CHECK(found.resolve("13").value() == "13.10.0");
  CHECK(found.resolve("12.1").value() == "12.1.1");
  CHECK(!found.resolve("12.4").ok());  // the folder does not hold it, whatever cudaenv knows
  CHECK(!shipped.resolve("13.4.0").ok());
  CHECK(!shipped.resolve("11.2.0").ok());
  CHECK(shipped.resolve("13.4").value() == "13.4.2");
}

TEST_CASE("release list cache: round trip, a day of freshness, hostile files ignored") {
  ReleaseListCache cache{"https://m.example/", "listing", 1000000, {{"12.6.0", "2024-08-01"}, {"13.9.0", std::nullopt}}};
  auto parsed = parse_release_cache(render_release_cache(cache));
  REQUIRE(parsed);
  CHECK(parsed->base_url == cache.base_url);
  CHECK(parsed->origin == "listing");
  CHECK(parsed->releases.size() == 2);
  CHECK(parsed->releases[0].date == "2024-08-01");
  CHECK(!parsed->releases[1].date);
  CHECK(is_fresh(*parsed, 1000000 + 3600));
  CHECK(!is_fresh(*parsed, 1000000 + kReleaseListTtlSeconds));
  CHECK(!is_fresh(*parsed, 1000000 - 10));  // written "in the future": clock moved, fetch again
  for (const char* hostile : {"", "[]", "{}", R"({"base_url": 1, "origin": "x", "fetched_at": 1, "releases": []})",
                              R"({"base_url": "u", "origin": "x", "fetched_at": "1", "releases": []})",
                              R"({"base_url": "u", "origin": "x", "fetched_at": 1, "releases": [{"label": 12}]})",
                              R"({"base_url": "u", "origin": "x", "fetched_at": 1, "releases": [{"label": "../x"}]})",
                              R"({"base_url": "u", "origin": "x", "fetched_at": 1, "releases": [3]})"}) {
    INFO(hostile);
    CHECK(!parse_release_cache(hostile));
  }
}

TEST_CASE("roles: CCCL is cuda_cccl up to 13.2 and cccl from 13.3; both install with one profile") {
  ProfileCatalog profiles = shipped_profiles();
  CHECK(profiles.alternatives("cccl") == std::vector<std::string>{"cuda_cccl", "cccl"});
  CHECK(profiles.alternatives("cuda_cccl") == std::vector<std::string>{"cuda_cccl", "cccl"});
  CHECK(profiles.alternatives("libcurand") == std::vector<std::string>{"libcurand"});
  std::string manifest_13_3 = R"({"release_label": "13.3.0",
    "cuda_nvcc": {"version": "13.3.33", "linux-x86_64": )" +
                              artifact("cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-13.3.33-archive.tar.xz") + R"(},
    "cuda_cudart": {"version": "13.3.30", "linux-x86_64": )" +
                              artifact("cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-13.3.30-archive.tar.xz") + R"(},
    "cuda_crt": {"version": "13.3.33", "linux-x86_64": )" +
                              artifact("cuda_crt/linux-x86_64/cuda_crt-linux-x86_64-13.3.33-archive.tar.xz") + R"(},
    "libnvvm": {"version": "13.3.33", "linux-x86_64": )" +
                              artifact("libnvvm/linux-x86_64/libnvvm-linux-x86_64-13.3.33-archive.tar.xz") + R"(},
    "cccl": {"version": "13.3.1", "linux-x86_64": )" +
                              artifact("cccl/linux-x86_64/cccl-linux-x86_64-13.3.1-archive.tar.xz") + R"(}})";
  auto manifest = parse_redist_manifest(manifest_13_3, "redistrib_13.3.0.json");
  REQUIRE(manifest.ok());
  auto plan = plan_install(*manifest, profiles, PlanRequest{"13.3.0", "minimal", {"cuda_cccl"}, "linux-x86_64"});
  REQUIRE(plan.ok());
  std::vector<std::string> components;
  for (const PlannedArchive& archive : *plan) components.push_back(archive.component);
  CHECK(components == std::vector<std::string>{"cuda_nvcc", "cuda_cudart", "cccl", "cuda_crt", "libnvvm"});
  auto without = parse_redist_manifest(one_component("cuda_nvcc", "cuda_nvcc/a.tar.xz"), "m.json");
  REQUIRE(without.ok());
  auto missing = plan_install(*without, profiles, PlanRequest{"12.1.1", "minimal", {}, "linux-x86_64"});
  REQUIRE(!missing.ok());
  CHECK(missing.error().message.find("cuda_cudart") != std::string::npos);
  auto no_cccl = plan_install(*without, profiles, PlanRequest{"12.1.1", "full", {"cccl"}, "linux-x86_64"});
  REQUIRE(!no_cccl.ok());
  CHECK(no_cccl.error().message.find("cuda_cccl or cccl") != std::string::npos);
}

TEST_CASE("manifest layout: hostile relative paths are refused, blaming the manifest") {
  for (const char* path :
       {"../cuda_nvcc/a.tar.xz", "/etc/passwd", "cuda_nvcc/../../x.tar.xz", "cuda_nvcc//a.tar.xz", "cuda_nvcc/./a.tar.xz",
        "libcublas/a.tar.xz", "a.tar.xz", "cuda_nvcc/", "cuda_nvcc/redistrib_12.1.1.json", "cuda_nvcc/redistrib_x.json",
        "cuda_nvcc/cudaenv-mirror.json", "cuda_nvcc/a.tar.xz.part", "cuda_nvcc/.hidden", "cuda_nvcc/a b.tar.xz", "cuda_nvcc/a\\b",
        "cuda_nvcc/%2e%2e/a", "cuda_nvcc/a\\u001b[31m.tar.xz", "cuda_nvcc/a?.tar.xz"}) {
    INFO(path);
    auto manifest = parse_redist_manifest(one_component("cuda_nvcc", path), "https://m.example/redistrib_12.1.1.json");
    REQUIRE(!manifest.ok());
    CHECK(manifest.error().message.find("https://m.example/redistrib_12.1.1.json") == 0);
    CHECK(manifest.error().message.find("cuda_nvcc.linux-x86_64") != std::string::npos);
    CHECK(manifest.error().hint.find("not the network") != std::string::npos);
  }
  CHECK(!parse_redist_manifest(one_component("../x", "../x/a.tar.xz"), "m.json").ok());
  CHECK(!parse_redist_manifest(one_component(".hidden", ".hidden/a.tar.xz"), "m.json").ok());
  CHECK(parse_redist_manifest(one_component("cuda_nvcc", "cuda_nvcc/linux-x86_64/a-1.0+x~1.tar.xz"), "m.json").ok());
}

TEST_CASE("manifest layout: two archives sharing a file name are refused") {
  std::string same_name = R"({"a": {"linux-x86_64": )" + artifact("a/x.tar.xz", 'a') + R"(},
                               "b": {"linux-x86_64": )" +
                          artifact("b/x.tar.xz", 'b') + "}}";
  auto clash = parse_redist_manifest(same_name, "m.json");
  REQUIRE(!clash.ok());
  CHECK(clash.error().message.find("both name a file x.tar.xz") != std::string::npos);
  std::string two_platforms =
      R"({"a": {"linux-x86_64": )" + artifact("a/x.tar.xz", 'a') + R"(, "linux-sbsa": )" + artifact("a/x.tar.xz", 'c') + "}}";
  CHECK(!parse_redist_manifest(two_platforms, "m.json").ok());
  // The very same archive listed for two platforms is one file, not a clash.
  std::string shared =
      R"({"a": {"linux-x86_64": )" + artifact("a/x.tar.xz", 'a') + R"(, "linux-sbsa": )" + artifact("a/x.tar.xz", 'a') + "}}";
  CHECK(parse_redist_manifest(shared, "m.json").ok());
}

TEST_CASE("manifest: a declared size above the cap is refused") {
  auto huge =
      parse_redist_manifest(R"({"a": {"linux-x86_64": )" + artifact("a/x.tar.xz", 'a', "18000000000000000000") + "}}", "m.json");
  REQUIRE(!huge.ok());
  CHECK(huge.error().message.find("GiB") != std::string::npos);
  CHECK(parse_redist_manifest(R"({"a": {"linux-x86_64": )" + artifact("a/x.tar.xz", 'a', "17179869184") + "}}", "m.json").ok());
  CHECK(!parse_redist_manifest(R"({"a": {"linux-x86_64": )" + artifact("a/x.tar.xz", 'a', "99999999999999999999999") + "}}",
                               "m.json")
             .ok());
}
