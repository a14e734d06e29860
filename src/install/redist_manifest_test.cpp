#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "install/catalog.h"
#include "install/plan.h"
#include "install/redist_manifest.h"
#include "support/cudnn_manifest.h"

using namespace cudaenv;
using cudaenv::testing::kCudnnManifest;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string fixture(const std::string& label) {
  return read_text(std::string(CUDAENV_SOURCE_DIR) + "/tests/fixtures/redist/cuda/redistrib_" + label + ".json");
}

ProfileCatalog shipped_profiles() {
  std::string path = std::string(CUDAENV_SOURCE_DIR) + "/manifests/redist-profiles.toml";
  auto profiles = parse_profile_catalog(read_text(path), path);
  REQUIRE(profiles.ok());
  return *profiles;
}

ReleaseCatalog shipped_releases() {
  std::string path = std::string(CUDAENV_SOURCE_DIR) + "/manifests/redist-releases.toml";
  auto releases = parse_release_catalog(read_text(path), path);
  REQUIRE(releases.ok());
  return *releases;
}

std::string artifact(const std::string& path, char digit = 'a', const std::string& size = "10") {
  return R"({"relative_path": ")" + path + R"(", "sha256": ")" + std::string(64, digit) + R"(", "size": ")" + size + "\"}";
}

std::string one_component(const std::string& key, const std::string& path) {
  return "{\"" + key + "\": {\"name\": \"x\", \"version\": \"1.0\", \"linux-x86_64\": " + artifact(path) + "}}";
}

}  // namespace

TEST_CASE("every real redist manifest parses and every profile resolves for its platforms") {
  ProfileCatalog profiles = shipped_profiles();
  for (const std::string label : {"11.8.0", "12.1.1", "13.0.0"}) {
    INFO(label);
    auto manifest = parse_redist_manifest(fixture(label), "redistrib_" + label + ".json");
    REQUIRE(manifest.ok());
    REQUIRE(manifest->find("cuda_nvcc"));
    for (const std::string platform : {"linux-x86_64", "linux-sbsa"}) {
      for (const std::string profile : {"minimal", "torch", "full"}) {
        INFO(platform << " " << profile);
        auto plan = plan_install(*manifest, profiles, PlanRequest{.label = label, .profile = profile, .platform = platform});
        REQUIRE(plan.ok());
        CHECK(plan->size() >= 3);
        for (const Archive& archive : *plan) {
          CHECK(archive.url.find(platform) != std::string::npos);
          CHECK(archive.url.find(archive.name + "/") == 0);  // below the manifest's folder, in the component's
          CHECK(archive.sha256.size() == 64);
          CHECK(archive.size > 0);
          CHECK(!archive.version.empty());
          CHECK(archive.distribution.empty());
          CHECK(!profiles.excluded_from_full(archive.name));
        }
      }
    }
  }
}

TEST_CASE("manifest parsing follows NVIDIA's format: optional release keys, string sizes") {
  auto old = parse_redist_manifest(fixture("12.1.1"), "12.1.1");
  REQUIRE(old.ok());
  CHECK(old->release_date == "2023-04-19");
  CHECK(!old->release_label);
  const RedistComponent* nvcc = old->find("cuda_nvcc");
  REQUIRE(nvcc);
  CHECK(nvcc->version == "12.1.105");
  const Archive& x86 = nvcc->platforms.at("linux-x86_64");
  CHECK(x86.name == "cuda_nvcc");
  CHECK(x86.version == "12.1.105");
  CHECK(x86.url == "cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.1.105-archive.tar.xz");
  CHECK(x86.sha256 == "0b85f7eee17788abbd170b0b493c74ce2e9fd5a9604461b99c2c378165e1083b");
  CHECK(x86.size == 44459684);

  auto recent = parse_redist_manifest(fixture("13.0.0"), "13.0.0");
  REQUIRE(recent.ok());
  CHECK(recent->release_label == "13.0.0");
  CHECK(recent->find("driver_assistant")->platforms.count("linux-all") == 1);
  CHECK(recent->find("release_label") == nullptr);
}

TEST_CASE("variant manifests are understood and planned by CUDA major") {
  auto manifest = parse_redist_manifest(kCudnnManifest, "cudnn.json");
  REQUIRE(manifest.ok());
  const RedistComponent* cudnn = manifest->find("cudnn");
  REQUIRE(cudnn);
  CHECK(cudnn->variants.at("linux-x86_64").size() == 2);
  CHECK(cudnn->variants.at("linux-x86_64").at("cuda11").sha256 == std::string(64, 'a'));
  auto for12 = archive_for(*cudnn, "linux-x86_64", 12);
  REQUIRE(for12);
  CHECK(for12->size == 1003184568);
  CHECK(!archive_for(*cudnn, "linux-x86_64", 13));
  CHECK(manifest->find("cudnn_samples")->platforms.count("source") == 1);
}

TEST_CASE("malformed manifests are refused naming the entry") {
  CHECK(!parse_redist_manifest("[1,2]", "m.json").ok());
  CHECK(!parse_redist_manifest("{not json", "m.json").ok());
  auto bad_size = parse_redist_manifest(
      R"({"a": {"linux-x86_64": {"relative_path": "a.tar.xz", "sha256": ")" + std::string(64, 'a') + R"(", "size": "12x"}}})",
      "m.json");
  REQUIRE(!bad_size.ok());
  CHECK(bad_size.error().message.find("a.linux-x86_64") != std::string::npos);
  auto bad_sha =
      parse_redist_manifest(R"({"a": {"linux-x86_64": {"relative_path": "a.tar.xz", "sha256": "xyz", "size": "1"}}})", "m.json");
  CHECK(!bad_sha.ok());
}

TEST_CASE("manifests with wrong JSON types are errors naming the file and the JSON path") {
  std::string sha = std::string(64, 'a');
  auto entry = [&](const std::string& fields) { return R"({"a": {"linux-x86_64": {)" + fields + "}}}"; };
  std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"release_label": 12})", "m.json: release_label must be a string (it is number)"},
      {R"({"a": {"name": ["x"]}})", "m.json: a.name must be a string (it is array)"},
      {R"({"a": {"version": {}}})", "m.json: a.version must be a string (it is object)"},
      {entry(R"("relative_path": 1, "sha256": ")" + sha + R"(", "size": "1")"),
       "m.json: a.linux-x86_64.relative_path must be a string (it is number)"},
      {entry(R"("relative_path": "a", "sha256": 7, "size": "1")"),
       "m.json: a.linux-x86_64.sha256 must be a string (it is number)"},
      {entry(R"("relative_path": "a", "sha256": ")" + sha + R"(", "size": -1)"),
       "m.json: a.linux-x86_64.size must not be negative"},
      {entry(R"("relative_path": "a", "sha256": ")" + sha + R"(", "size": "99999999999999999999")"),
       "m.json: a.linux-x86_64.size \"99999999999999999999\" is not a size in bytes"},
      {entry(R"("relative_path": "a", "sha256": ")" + sha + R"(")"), "m.json: a.linux-x86_64 has no \"size\""},
      {R"({"a": {"linux-sbsa": {"cuda12": {"relative_path": "a", "sha256": ")" + sha + R"(", "size": true}}}})",
       "m.json: a.linux-sbsa.cuda12.size must be a whole number (it is boolean)"},
  };
  for (const auto& [text, message] : cases) {
    auto parsed = parse_redist_manifest(text, "m.json");
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().message == message);
  }
}

TEST_CASE("profiles: 13.x minimal adds crt and libnvvm, full leaves out driver and nsight items") {
  ProfileCatalog profiles = shipped_profiles();
  auto manifest = parse_redist_manifest(fixture("13.0.0"), "13.0.0");
  REQUIRE(manifest.ok());
  auto minimal = profile_components(profiles, *manifest, "13.0.0", "minimal", "linux-x86_64");
  REQUIRE(minimal.ok());
  CHECK(*minimal == std::vector<std::string>{"cuda_nvcc", "cuda_cudart", "cccl", "cuda_crt", "libnvvm"});
  auto plan = plan_install(*manifest, profiles, PlanRequest{.label = "13.0.0", .profile = "minimal", .platform = "linux-x86_64"});
  REQUIRE(plan.ok());
  CHECK((*plan)[2].name == "cuda_cccl");  // the cccl role, as 13.0 names it
  auto full = profile_components(profiles, *manifest, "13.0.0", "full", "linux-x86_64");
  REQUIRE(full.ok());
  for (const char* never : {"nvidia_driver", "fabricmanager", "imex", "nsight_compute", "cuda_documentation", "mft", "mft_oem",
                            "driver_assistant", "cuda_nsight"}) {
    CHECK(std::find(full->begin(), full->end(), never) == full->end());
  }
  CHECK(std::find(full->begin(), full->end(), "libcublas") != full->end());
  auto unknown = profile_components(profiles, *manifest, "13.0.0", "tiny", "linux-x86_64");
  REQUIRE(!unknown.ok());
  CHECK(unknown.error().hint.find("minimal") != std::string::npos);
}

TEST_CASE("plan: extras are added once, a missing component lists the available ones") {
  ProfileCatalog profiles = shipped_profiles();
  auto manifest = parse_redist_manifest(fixture("12.1.1"), "12.1.1");
  REQUIRE(manifest.ok());
  auto plan = plan_install(
      *manifest, profiles,
      PlanRequest{.label = "12.1.1", .profile = "minimal", .components = {"libcurand", "cuda_nvcc"}, .platform = "linux-x86_64"});
  REQUIRE(plan.ok());
  REQUIRE(plan->size() == 4);
  CHECK(plan->back().name == "libcurand");
  auto missing = plan_install(
      *manifest, profiles,
      PlanRequest{.label = "12.1.1", .profile = "minimal", .components = {"libcurandd"}, .platform = "linux-x86_64"});
  REQUIRE(!missing.ok());
  CHECK(missing.error().message.find("libcurandd") != std::string::npos);
  CHECK(missing.error().hint.find("did you mean libcurand") != std::string::npos);
  CHECK(missing.error().hint.find("cuda_cudart") != std::string::npos);
  auto wrong_platform = plan_install(
      *manifest, profiles,
      PlanRequest{.label = "12.1.1", .profile = "minimal", .components = {"cuda_compat"}, .platform = "linux-x86_64"});
  REQUIRE(!wrong_platform.ok());
  CHECK(wrong_platform.error().hint.find("linux-aarch64") != std::string::npos);
}

TEST_CASE("release catalog: newest first, prefixes resolve, pins match the real manifests") {
  ReleaseCatalog catalog = shipped_releases();
  CHECK(catalog.default_base == "https://developer.download.nvidia.com/compute/cuda/redist/");
  CHECK(catalog.resolve("12.1").value() == "12.1.1");
  CHECK(catalog.resolve("12").value() == "12.9.2");
  CHECK(catalog.resolve("12.1.0").value() == "12.1.0");
  CHECK(catalog.resolve("12.7.5").value() == "12.7.5");  // unlisted full label: for mirrors
  auto none = catalog.resolve("12.7");
  REQUIRE(!none.ok());
  CHECK(none.error().hint.find("nearest known release is 12.") != std::string::npos);
  CHECK(!catalog.resolve("twelve").ok());
  for (size_t i = 1; i < catalog.releases.size(); ++i) CHECK(catalog.releases[i - 1].version > catalog.releases[i].version);
  CHECK(catalog.find("12.1.1")->date == "2023-04-19");
  CHECK(catalog.find("13.0.0")->sha256 == "fe6a86b54450d03ae709123a52717870c49046d65d45303ce585c7aa8a83a217");
}

TEST_CASE("redist platform from the machine name") {
  CHECK(redist_platform_for("x86_64") == "linux-x86_64");
  CHECK(redist_platform_for("aarch64") == "linux-sbsa");
  CHECK(!redist_platform_for("ppc64le"));
}

TEST_CASE("plan: a release label is a version, never a path") {
  CHECK(check_release_label("12.4.1"));
  for (const char* label : {"../../etc", "12.4.1/../../x", "", "12..1", "/abs", "12.4.1\n"}) {
    INFO(label);
    auto checked = check_release_label(label);
    REQUIRE_FALSE(checked);
    CHECK(checked.error().message.find("is not a CUDA release label") != std::string::npos);
  }
}

TEST_CASE("roles: CCCL is cuda_cccl up to 13.2 and cccl from 13.3, both install with one profile") {
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
  auto plan =
      plan_install(*manifest, profiles,
                   PlanRequest{.label = "13.3.0", .profile = "minimal", .components = {"cuda_cccl"}, .platform = "linux-x86_64"});
  REQUIRE(plan.ok());
  std::vector<std::string> components;
  for (const Archive& archive : *plan) components.push_back(archive.name);
  CHECK(components == std::vector<std::string>{"cuda_nvcc", "cuda_cudart", "cccl", "cuda_crt", "libnvvm"});
  auto without = parse_redist_manifest(one_component("cuda_nvcc", "cuda_nvcc/a.tar.xz"), "m.json");
  REQUIRE(without.ok());
  auto missing =
      plan_install(*without, profiles, PlanRequest{.label = "12.1.1", .profile = "minimal", .platform = "linux-x86_64"});
  REQUIRE(!missing.ok());
  CHECK(missing.error().message.find("cuda_cudart") != std::string::npos);
  auto no_cccl = plan_install(
      *without, profiles, PlanRequest{.label = "12.1.1", .profile = "full", .components = {"cccl"}, .platform = "linux-x86_64"});
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
