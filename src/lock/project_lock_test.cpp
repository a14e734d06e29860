#include <catch2/catch.hpp>

#include <unistd.h>

#include "lock/project_lock.h"

using namespace cudaenv;

namespace {

// The sources of a resolution whose package index is the effect under test: counted, and
// failing as an unreachable index would.
LockSources sources_with_index(int& asked) {
  LockSources sources;
  sources.base_url = "http://127.0.0.1:9/cuda/redist/";
  sources.index_url = [&asked]() -> Result<std::string> {
    ++asked;
    return make_error("cannot read the index", "check the network");
  };
  sources.data = DataFiles::find({});
  sources.cache_dir = "/nonexistent/cache";
  return sources;
}

PlanFiles fixed_plan(const InstallPlan& plan) {
  return [plan](const InstallRequest&, const std::function<bool()>&) -> Result<InstallPlan> { return plan; };
}

InstallRequest request_with(std::vector<std::string> libraries) {
  InstallRequest request;
  request.label = "12.4.1";
  request.platform = "linux-x86_64";
  request.libraries = std::move(libraries);
  return request;
}

}  // namespace

TEST_CASE("project lock: what a cuda.toml asks for, and where its lock lies", "[project_lock]") {
  CudaToml toml;
  toml.path = "/p/cuda.toml";
  toml.version = "12.4";
  toml.components = {"cuda_nvrtc"};
  toml.libraries = {"cudnn@9"};
  LockRequest request = lock_request_of(toml, InstallSource::pypi);
  CHECK(request ==
        LockRequest{.version = "12.4", .components = {"cuda_nvrtc"}, .libraries = {"cudnn@9"}, .source = InstallSource::pypi});
  toml.profile = "torch";
  CHECK(lock_request_of(toml, InstallSource::redist).profile == "torch");
  CHECK(lock_path_of(toml) == "/p/cuda.lock");
}

TEST_CASE("project lock: a plan without libraries is the source's, and asks no index", "[project_lock]") {
  int asked = 0;
  InstallPlan plan;
  plan.label = "12.4.1";
  plan.files.push_back(Archive{
      .name = "cuda_nvcc", .version = "12.4.131", .url = "https://x/nvcc.tar.xz", .sha256 = std::string(64, 'a'), .size = 1});
  ProgressReporter progress(stderr, false);
  PlanFiles planned = with_libraries(fixed_plan(plan), sources_with_index(asked), progress);
  auto result = planned(request_with({}), [] { return false; });
  REQUIRE(result.ok());
  CHECK(*result == plan);
  CHECK(asked == 0);
}

TEST_CASE("project lock: NCCL asks the package index it is given, whose error is the plan's", "[project_lock]") {
  int asked = 0;
  ProgressReporter progress(stderr, false);
  PlanFiles planned = with_libraries(fixed_plan(InstallPlan{}), sources_with_index(asked), progress);
  auto result = planned(request_with({"nccl"}), [] { return false; });
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message == "cannot read the index");
  CHECK(asked == 1);
  auto unknown = planned(request_with({"mkl"}), [] { return false; });
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().hint.find("cudaenv installs these libraries") == 0);
  CHECK(asked == 1);
}

TEST_CASE("project lock: a lock file is written and read back, a missing one is none", "[project_lock]") {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("cudaenv-project-lock-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto missing = read_lock_file(dir / "cuda.lock");
  REQUIRE(missing.ok());
  CHECK_FALSE(missing->has_value());
  CudaLock lock;
  lock.request = LockRequest{"12.4", "", {}, {}, InstallSource::redist};
  lock.label = "12.4.1";
  lock.profile = "minimal";
  lock.platforms = {"linux-x86_64"};
  lock.source = "https://developer.download.nvidia.com/compute/cuda/redist/";
  lock.manifest_sha256 = std::string(64, 'c');
  lock.components.push_back(LockedArchive{.platform = "linux-x86_64",
                                          .archive = {.name = "cuda_nvcc",
                                                      .version = "12.4.131",
                                                      .url = lock.source + "cuda_nvcc/x.tar.xz",
                                                      .sha256 = std::string(64, 'a'),
                                                      .size = 10}});
  REQUIRE(write_lock_file(dir / "cuda.lock", lock).ok());
  auto read = read_lock_file(dir / "cuda.lock");
  REQUIRE(read.ok());
  REQUIRE(read->has_value());
  CHECK((*read)->lock == lock);
  CHECK((*read)->text == render_lock(lock));
  std::filesystem::remove_all(dir);
}
