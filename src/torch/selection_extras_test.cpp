#include <catch2/catch.hpp>

#include <unistd.h>

#include "torch/selection_extras.h"

using namespace cudaenv;

namespace {

Selection selection_of(const std::string& version, const std::string& backend) {
  Selection selection;
  selection.request = Request{version, OriginKind::project_file, "/p/cuda.toml"};
  selection.toolkit.name = version;
  selection.toolkit.version = parse_version(version);
  selection.toolkit.home = "/nonexistent/versions/" + version;
  CudaToml project;
  project.path = "/p/cuda.toml";
  project.version = version;
  project.torch_backend = backend;
  selection.project = project;
  return selection;
}

}  // namespace

TEST_CASE("selection extras: the memo keeps the newest answers, and reads back only answers a choice gives",
          "[selection_extras]") {
  std::string memo = remembered_backend("", "k1", "cu126", 3);
  memo = remembered_backend(memo, "k2", "-", 3);
  CHECK(recalled_backend(memo, "k1") == "cu126");
  CHECK(recalled_backend(memo, "k2") == "-");
  CHECK_FALSE(recalled_backend(memo, "k3"));
  memo = remembered_backend(memo, "k3", "cpu", 3);
  memo = remembered_backend(memo, "k4", "cu130", 3);
  CHECK_FALSE(recalled_backend(memo, "k1"));
  CHECK(recalled_backend(memo, "k4") == "cu130");
  CHECK_FALSE(recalled_backend("k5 rm -rf\nk6 cu\n", "k5"));
  CHECK_FALSE(recalled_backend("k6 cu\n", "k6"));
}

TEST_CASE("selection extras: [torch] backend cpu or none is taken as written", "[selection_extras]") {
  RealFileSystem disk;
  Layout layout;
  layout.user_root = "/nonexistent/root";
  DataFiles data = DataFiles::find({});
  auto cpu = selection_extras(disk, {}, layout, data, selection_of("12.4.1", "cpu"));
  REQUIRE(cpu.ok());
  CHECK(cpu->uv_torch_backend == "cpu");
  CHECK(cpu->target_variables.empty());
  auto none = selection_extras(disk, {}, layout, data, selection_of("12.4.1", "none"));
  REQUIRE(none.ok());
  CHECK_FALSE(none->uv_torch_backend);
}

TEST_CASE("selection extras: auto chooses from the shipped table for the toolkit and the driver, and remembers it",
          "[selection_extras]") {
  std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("cudaenv-selection-extras-" + std::to_string(::getpid()));
  RealFileSystem disk;
  Layout layout;
  layout.user_root = root;
  std::filesystem::create_directories(layout.cache_dir());
  DataFiles data = DataFiles::find({});
  EnvMap env{{"CUDAENV_DRIVER_VERSION", "580.65.06"}, {"CUDAENV_TORCH_OFFLINE", "1"}};
  auto first = selection_extras(disk, env, layout, data, selection_of("12.4.1", "auto"));
  REQUIRE(first.ok());
  REQUIRE(first->uv_torch_backend);
  CHECK(first->uv_torch_backend->rfind("cu12", 0) == 0);
  CHECK(first->inputs.empty());  // offline: no cached index to watch
  auto memo = disk.read_file(layout.cache_dir() / "uv-torch-backend");
  REQUIRE(memo.ok());
  CHECK(memo->find(" " + *first->uv_torch_backend + "\n") != std::string::npos);
  auto again = selection_extras(disk, env, layout, data, selection_of("12.4.1", "auto"));
  REQUIRE(again.ok());
  CHECK(again->uv_torch_backend == first->uv_torch_backend);
  std::filesystem::remove_all(root);
}
