#include <catch2/catch.hpp>

#include "doctor/driver_ceiling.h"
#include "doctor/host_compiler.h"
#include "support/memory_file_system.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

namespace {

DriverProbe driver_running(const std::string& version, const std::string& cuda) {
  DriverProbe driver;
  driver.version = parse_driver_version(version);
  driver.cuda = parse_version(cuda);
  return driver;
}

}  // namespace

TEST_CASE("driver ceiling: a driver too old for the toolkit gets a warning and what it runs", "[driver_ceiling]") {
  auto facts = load_cuda_facts(DataFiles::find({}));
  REQUIRE(facts.ok());
  DriverProbe old = driver_running("535.104.05", "12.2");
  auto ceiling = driver_ceiling(old, "13.0.2", *facts);
  REQUIRE(ceiling);
  CHECK(ceiling->warning.find("CUDA 13.0.2 needs NVIDIA driver >= ") == 0);
  CHECK(ceiling->warning.find("this machine's driver 535.104.05 (runs CUDA up to 12.2) cannot run it") != std::string::npos);
  CHECK(ceiling->advice.find("Upgrade the NVIDIA driver, or install what it runs: `cudaenv install 12.") != std::string::npos);
  CHECK_FALSE(driver_ceiling(old, "12.2.2", *facts));
  CHECK_FALSE(driver_ceiling(DriverProbe{}, "13.0.2", *facts));
  CHECK_FALSE(driver_ceiling(old, "not-a-label", *facts));
}

TEST_CASE("driver ceiling: CUDAENV_DRIVER_VERSION stands in for the machine's driver, unprobed", "[driver_ceiling]") {
  MemoryFileSystem disk;
  DriverProbe driver = install_driver(disk, {}, std::nullopt, DriverReading{"535.104.05", "CUDAENV_DRIVER_VERSION"});
  REQUIRE(driver.version);
  CHECK(driver.version->text == "535.104.05");
  CHECK(driver.overridden());
  auto facts = load_cuda_facts(DataFiles::find({}));
  REQUIRE(facts.ok());
  auto ceiling = driver_ceiling(driver, "13.0.2", *facts);
  REQUIRE(ceiling);
  CHECK(ceiling->warning.find("the driver 535.104.05 (CUDAENV_DRIVER_VERSION)") != std::string::npos);
}

TEST_CASE("host compiler: the project's compiler is checked against the selected toolkit, the error naming the file",
          "[driver_ceiling]") {
  MemoryFileSystem disk;
  disk.dir("/usr/bin");
  EnvMap env{{"PATH", "/usr/bin"}};
  DataFiles data = DataFiles::find({});
  Selection selection;
  selection.toolkit.name = "12.4.1";
  selection.toolkit.version = parse_version("12.4.1");
  selection.toolkit.home = "/opt/cuda-12.4";
  CHECK(check_selection_compiler(disk, env, data, selection).ok());  // no cuda.toml
  CudaToml project;
  project.path = "/p/cuda.toml";
  project.host_compiler = "gcc-99";
  selection.project = project;
  Status missing = check_selection_compiler(disk, env, data, selection);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("/p/cuda.toml: ") == 0);
  CHECK(missing.error().message.find("gcc-99") != std::string::npos);
  CHECK_FALSE(check_toolkit_compiler(disk, env, data, "gcc-99", nullptr).ok());
}
