#include <catch2/catch.hpp>

#include "mirror/mirror_index.h"

using namespace cudaenv;

namespace {

MirrorFile file(std::string component, std::string platform, char digit, std::uint64_t size = 10) {
  return MirrorFile{component, "1.0", platform, component + "/" + platform + "/" + component + ".tar.xz", std::string(64, digit),
                    size};
}

MirrorRelease release(std::string label, char manifest_digit, std::vector<MirrorFile> files) {
  return MirrorRelease{label, "2023-04-19",
                       MirrorFile{"manifest", "", "", "redistrib_" + label + ".json", std::string(64, manifest_digit), 5},
                       std::move(files)};
}

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
  CHECK(parsed->releases[0].files[0].component == "cuda_nvcc");  // sorted by platform first
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
  CHECK(index.releases[0].files[0].component == "cuda_cccl");
  CHECK(index.releases[0].manifest.sha256 == std::string(64, 'c'));
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
