// Release discovery's pure parts (the mirror index, folder listings, the release-list cache), fed
// real-looking and hostile input.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>

#include "install/catalog.h"
#include "mirror/release_discovery.h"

using namespace cudaenv;

namespace {

MirrorFile file(std::string component, std::string platform, char digit, std::uint64_t size = 10) {
  return MirrorFile{.platform = platform,
                    .archive = {.name = component,
                                .version = "1.0",
                                .url = component + "/" + platform + "/" + component + ".tar.xz",
                                .sha256 = std::string(64, digit),
                                .size = size}};
}

MirrorRelease release(std::string label, char manifest_digit, std::vector<MirrorFile> files) {
  return MirrorRelease{.label = label,
                       .release_date = "2023-04-19",
                       .manifest = {.archive = {.name = "manifest",
                                                .url = "redistrib_" + label + ".json",
                                                .sha256 = std::string(64, manifest_digit),
                                                .size = 5}},
                       .files = std::move(files)};
}

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

}  // namespace

TEST_CASE("mirror index: written and read back unchanged, newest release first") {
  MirrorIndex index;
  merge_release(index, release("11.8.0", 'a', {file("cuda_nvcc", "linux-x86_64", '1')}));
  merge_release(index, release("12.1.1", 'b', {file("cuda_nvcc", "linux-sbsa", '2'), file("cuda_cudart", "linux-x86_64", '3')}));
  std::string text = render_mirror_index(index);
  auto parsed = parse_mirror_index(text, "idx");
  REQUIRE(parsed);
  REQUIRE(parsed->releases.size() == 2);
  CHECK(parsed->releases[0].label == "12.1.1");
  CHECK(parsed->releases[0].platforms() == std::vector<std::string>{"linux-sbsa", "linux-x86_64"});
  CHECK(parsed->releases[0].files[0].archive.name == "cuda_nvcc");  // sorted by platform first
  CHECK(parsed->releases[1].release_date == "2023-04-19");
  CHECK(render_mirror_index(*parsed) == text);
}

TEST_CASE("mirror index: a second sync of the same manifest adds files, a changed manifest replaces them") {
  MirrorIndex index;
  merge_release(index, release("12.1.1", 'b', {file("cuda_nvcc", "linux-x86_64", '1')}));
  merge_release(index, release("12.1.1", 'b', {file("libcurand", "linux-x86_64", '2'), file("cuda_nvcc", "linux-x86_64", '1')}));
  REQUIRE(index.releases.size() == 1);
  CHECK(index.releases[0].files.size() == 2);
  merge_release(index, release("12.1.1", 'c', {file("cuda_cccl", "linux-x86_64", '4')}));
  REQUIRE(index.releases[0].files.size() == 1);
  CHECK(index.releases[0].files[0].archive.name == "cuda_cccl");
  CHECK(index.releases[0].manifest.archive.sha256 == std::string(64, 'c'));
}

TEST_CASE("mirror index: damaged or escaping entries are refused with the file named") {
  auto not_json = parse_mirror_index("{", "/m/cudaenv-mirror.json");
  REQUIRE_FALSE(not_json);
  CHECK(not_json.error().message.find("/m/cudaenv-mirror.json") != std::string::npos);
  std::string escaping = R"({"releases": [{"label": "12.1.1", "manifest": {"relative_path": "redistrib_12.1.1.json",
    "sha256": ")" + std::string(64, 'a') +
                         R"(", "size": 3}, "files": [{"component": "x", "relative_path": "../etc/passwd",
    "sha256": ")" + std::string(64, 'a') +
                         R"(", "size": 3}]}]})";
  auto parsed = parse_mirror_index(escaping, "idx");
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().message ==
        "idx: releases[0].files[0] has relative_path \"../etc/passwd\", which leaves the mirror folder");
}

TEST_CASE("mirror index: wrong JSON types are errors naming the entry, never exceptions") {
  auto number_label = parse_mirror_index(R"({"releases":[{"label":12}]})", "/m/cudaenv-mirror.json");
  REQUIRE_FALSE(number_label);
  CHECK(number_label.error().message == "/m/cudaenv-mirror.json: releases[0].label must be a string (it is number)");
  CHECK(number_label.error().hint.find("mirror sync") != std::string::npos);
  std::string sha = std::string(64, 'a');
  for (std::string text : std::vector<std::string>{
           R"({"releases": {}})", R"({"releases": [7]})", R"({"releases": [{"label": "1.2", "manifest": 1}]})",
           R"({"releases": [{"label": "1.2", "release_date": 5, "manifest": {}}]})",
           R"({"releases": [{"label": "1.2", "manifest": {"relative_path": "r.json", "sha256": ")" + sha + R"(", "size": -1}}]})",
           R"({"releases": [{"label": "1.2", "manifest": {"relative_path": "r.json", "sha256": ")" + sha +
               R"(", "size": 1, "component": []}}]})",
           R"({"releases": [{"label": "1.2", "manifest": {"relative_path": "r.json", "sha256": ")" + sha +
               R"(", "size": 1}, "files": {}}]})"}) {
    auto parsed = parse_mirror_index(text, "idx");
    CHECK_FALSE(parsed);
    if (!parsed) CHECK(parsed.error().message.rfind("idx: releases", 0) == 0);
  }
}

TEST_CASE("mirror index: relative paths must stay inside the folder") {
  CHECK(is_contained_path("cuda_nvcc/linux-x86_64/a.tar.xz"));
  CHECK_FALSE(is_contained_path("/etc/passwd"));
  CHECK_FALSE(is_contained_path("a/../../b"));
  CHECK_FALSE(is_contained_path("a//b"));
  CHECK_FALSE(is_contained_path(""));
}

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
  CHECK(parse_redist_listing("<a href=\"redistrib_12.1.1.json").empty());            // cut off before its '>'
  CHECK(parse_redist_listing("<a href=\"redistrib_12.1.1.json>x</a>").size() == 1);  // unterminated quote
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

TEST_CASE("discovered catalog: stubs and the 13.4.0 preview are never offered, pins come from the shipped list") {
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
  // A mirror URL that is not UTF-8 is written (and, no longer matching, fetched again next time).
  ReleaseListCache odd{"https://m.example/\xff/", "listing", 1000000, {}};
  auto written = parse_release_cache(render_release_cache(odd));
  REQUIRE(written);
  CHECK(written->base_url != odd.base_url);
}
