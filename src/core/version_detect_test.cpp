#include <catch2/catch.hpp>

#include "core/version_detect.h"
#include "support/memory_file_system.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

TEST_CASE("version detection reads version.json, cuda.h and the nvcc banner") {
  CHECK(version_from_version_json(R"({"cuda": {"name": "CUDA SDK", "version": "12.1.1"}, "cuda_nvcc": {}})")->str() == "12.1.1");
  CHECK_FALSE(version_from_version_json(R"({"cuda": {"version": 12}})"));
  CHECK_FALSE(version_from_version_json("not json"));
  CHECK(version_from_cuda_h("#ifndef X\n#define CUDA_VERSION 12010\n")->str() == "12.1");
  CHECK(version_from_cuda_h("#define CUDA_VERSION 13000")->str() == "13.0");
  CHECK(version_from_cuda_h("#define CUDA_VERSION 11080")->str() == "11.8");
  CHECK_FALSE(version_from_cuda_h("#define CUDART_VERSION 12010"));
  CHECK(version_from_nvcc_banner("nvcc: NVIDIA (R) Cuda compiler driver\n"
                                 "Cuda compilation tools, release 12.4, V12.4.131\n")
            ->str() == "12.4");
  CHECK_FALSE(version_from_nvcc_banner("gcc (Debian 12.2.0-14) 12.2.0"));
}

TEST_CASE("version detection: a cuda.h with a huge or odd CUDA_VERSION gives no version") {
  CHECK_FALSE(version_from_cuda_h("#define CUDA_VERSION 99999999999999999999999"));
  CHECK_FALSE(version_from_cuda_h("#define CUDA_VERSION 2147483648"));
  CHECK_FALSE(version_from_cuda_h("#define CUDA_VERSION 1000000"));
  CHECK_FALSE(version_from_cuda_h("#define CUDA_VERSION 999"));
  CHECK(version_from_cuda_h("#define CUDA_VERSION 999990")->str() == "999.99");
  CHECK(version_from_cuda_h("#define CUDA_VERSION_MINOR 5\n#define\tCUDA_VERSION  \t12040 // 12.4")->str() == "12.4");
  CHECK_FALSE(version_from_cuda_h("#define CUDA_VERSION\n12040"));
  CHECK_FALSE(version_from_cuda_h("#defineCUDA_VERSION 12040"));
  CHECK_FALSE(version_from_cuda_h("#define"));
  // Millions of digits once overflowed std::regex's recursive matcher.
  CHECK_FALSE(version_from_cuda_h("#define CUDA_VERSION " + std::string(3'000'000, '1')));
  CHECK_FALSE(version_from_nvcc_banner("release " + std::string(3'000'000, '1')));
  CHECK_FALSE(version_from_nvcc_banner("release 12."));
  CHECK(version_from_nvcc_banner("release x, release 12.4, V12.4.131")->str() == "12.4");
}

TEST_CASE("a toolkit's shipped version: version.json, else include/cuda.h, else targets/*/include/cuda.h") {
  cudaenv::testing::MemoryFileSystem fs;
  fs.file("/t/json/version.json", R"({"cuda": {"version": "12.4.1"}})");
  fs.file("/t/json/include/cuda.h", "#define CUDA_VERSION 11080");
  fs.file("/t/header/include/cuda.h", "#define CUDA_VERSION 12010");
  fs.file("/t/redist/targets/x86_64-linux/include/cuda.h", "#define CUDA_VERSION 13000");
  fs.dir("/t/none/bin");
  CHECK(shipped_toolkit_version(fs, "/t/json")->str() == "12.4.1");
  CHECK(shipped_toolkit_version(fs, "/t/header")->str() == "12.1");
  CHECK(shipped_toolkit_version(fs, "/t/redist")->str() == "13.0");
  CHECK_FALSE(shipped_toolkit_version(fs, "/t/none"));
  Toolkit named;
  named.name = "12.2.2";
  named.version = parse_version("12.2.2");
  named.home = "/t/json";
  CHECK(toolkit_cuda_version(fs, named)->str() == "12.2.2");  // the name decides where it is a version
  Toolkit registered;
  registered.name = "my-cuda";
  registered.home = "/t/json";
  CHECK(toolkit_cuda_version(fs, registered)->str() == "12.4.1");
}

// The NVIDIA driver version, read the way uv and doctor do: /sys first, then /proc.
TEST_CASE("the driver version is read from /proc/driver/nvidia/version's first line") {
  CHECK(driver_version_from_proc_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
                                      "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n") == "550.54.14");
  CHECK(driver_version_from_proc_text("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  "
                                      "(dvs-builder@U16-I3-B03-4-3)  Sun Jul 27 07:09:25 UTC 2025\n") == "580.65.06");
  CHECK(driver_version_from_proc_text("NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104  Sat Aug 19 2023\n") ==
        "535.104");
  CHECK_FALSE(driver_version_from_proc_text(""));
  CHECK_FALSE(driver_version_from_proc_text("GCC version:  gcc version 12.3.0\n"));
  // Only two or three runs of digits count as a version.
  CHECK_FALSE(driver_version_from_proc_text("NVRM version: Kernel Module  550.54.14.2 550 .54 550..14 550.x\n"));
  CHECK(driver_version_from_proc_text("NVRM version: Kernel Module  550. 550.54\n") == "550.54");
}

TEST_CASE("read_driver_version prefers /sys/module/nvidia/version, then /proc, else nothing") {
  MemoryFileSystem both;
  both.file("/sys/module/nvidia/version", "560.35.03\n")
      .file("/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22\n");
  auto reading = read_driver_version(both);
  REQUIRE(reading);
  CHECK(reading->version == "560.35.03");
  CHECK(reading->source == "/sys/module/nvidia/version");

  MemoryFileSystem proc_only;
  proc_only.file("/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22\n");
  reading = read_driver_version(proc_only);
  REQUIRE(reading);
  CHECK(reading->version == "550.54.14");
  CHECK(reading->source == "/proc/driver/nvidia/version");

  MemoryFileSystem garbled;
  garbled.file("/sys/module/nvidia/version", "unknown\n");
  CHECK_FALSE(read_driver_version(garbled));
  CHECK_FALSE(read_driver_version(MemoryFileSystem()));
}

TEST_CASE("read_driver_version reads under another root: a stand-in machine") {
  MemoryFileSystem machine;
  machine.file("/stand-in/proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu\n");
  CHECK_FALSE(read_driver_version(machine));
  auto reading = read_driver_version(machine, "/stand-in");
  REQUIRE(reading);
  CHECK(reading->version == "550.54.14");
  CHECK(reading->source == "/stand-in/proc/driver/nvidia/version");
}

TEST_CASE("CUDAENV_DRIVER_VERSION: a driver version, nothing when unset or empty, an error otherwise") {
  auto unset = driver_override({});
  REQUIRE(unset.ok());
  CHECK_FALSE(unset.value());
  auto empty = driver_override({{"CUDAENV_DRIVER_VERSION", ""}});
  REQUIRE(empty.ok());
  CHECK_FALSE(empty.value());
  auto given = driver_override({{"CUDAENV_DRIVER_VERSION", " 580.65.06\n"}});
  REQUIRE(given.ok());
  REQUIRE(given.value());
  CHECK(given.value()->version == "580.65.06");
  CHECK(given.value()->source == "CUDAENV_DRIVER_VERSION");
  for (const char* bad : {"580", "12.4.1.1", "r580", "580.65.06; rm -rf", "-1.2"}) {
    auto read = driver_override({{"CUDAENV_DRIVER_VERSION", bad}});
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().message.find(std::string("'") + bad + "'") != std::string::npos);
  }
}
