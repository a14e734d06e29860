#include <catch2/catch.hpp>

#include "store/targets.h"
#include "support/memory_file_system.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

static const char* kA100 = "[driver]\nversion = \"535.104.05\"\ncuda = \"12.2\"\n[[gpus]]\ncompute_capability = \"8.0\"\n";
static const char* kH100 = "[driver]\nversion = \"580.65.06\"\ncuda = \"13.0\"\n[[gpus]]\ncompute_capability = \"9.0\"\n";

static Layout layout() { return Layout{"/u/.cudaenv", fs::path("/shared")}; }

TEST_CASE("targets: the user's file of a name comes before the shared root's") {
  MemoryFileSystem fs;
  fs.file("/u/.cudaenv/targets/a100.toml", kA100)
      .file("/shared/targets/a100.toml", kH100)
      .file("/shared/targets/h100.toml", kH100)
      .file("/shared/targets/broken.toml", "[driver]\n")
      .file("/shared/targets/not a name.toml", kH100)
      .file("/shared/targets/README", "x");
  auto files = list_targets(fs, layout());
  REQUIRE(files.size() == 4);
  CHECK(files[0].name == "a100");
  CHECK_FALSE(files[0].shared);
  CHECK(files[1].name == "a100");
  CHECK(files[1].shadowed);
  CHECK(files[2].name == "broken");
  CHECK_FALSE(files[2].target.ok());
  CHECK(files[3].name == "h100");
  CHECK(files[3].shared);

  auto a100 = load_target(fs, layout(), "a100");
  REQUIRE(a100.ok());
  CHECK(a100->driver.text == "535.104.05");
  auto h100 = load_target(fs, layout(), "h100");
  REQUIRE(h100.ok());
  CHECK(h100->path == "/shared/targets/h100.toml");
  auto missing = load_target(fs, layout(), "v100");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "no target named v100 (saved: a100, broken, h100)");
  auto removed = remove_target(fs, layout(), "h100");
  REQUIRE_FALSE(removed.ok());
  CHECK(removed.error().message == "target h100 is in the shared root (/shared/targets/h100.toml), which cudaenv only reads");
}

TEST_CASE("targets: CUDAENV_TARGET before cuda.toml's [target] name, each named in errors") {
  MemoryFileSystem fs;
  fs.file("/u/.cudaenv/targets/a100.toml", kA100).file("/shared/targets/h100.toml", kH100);
  CudaToml project;
  project.path = "/p/cuda.toml";
  project.target = "a100";
  auto from_project = select_target(fs, {}, layout(), project);
  REQUIRE(from_project.ok());
  REQUIRE(*from_project);
  CHECK((*from_project)->target.name == "a100");
  CHECK((*from_project)->setting.origin() == "/p/cuda.toml");

  auto from_env = select_target(fs, {{"CUDAENV_TARGET", "h100"}}, layout(), project);
  REQUIRE(from_env.ok());
  CHECK((*from_env)->target.driver.text == "580.65.06");
  CHECK((*from_env)->setting.origin() == "CUDAENV_TARGET");

  CHECK_FALSE(*select_target(fs, {}, layout(), std::nullopt));
  auto bad = select_target(fs, {{"CUDAENV_TARGET", "../etc/passwd"}}, layout(), project);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "CUDAENV_TARGET: \"../etc/passwd\" is not a target name");
  project.target = "v100";
  auto missing = select_target(fs, {}, layout(), project);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message ==
        "the target [target] name = \"v100\" in /p/cuda.toml: no target named v100 (saved: a100, h100)");
}
