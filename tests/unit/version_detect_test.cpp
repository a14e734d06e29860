#include <catch2/catch.hpp>

#include "core/version_detect.h"
#include "support/memory_file_system.h"

using namespace cudaenv;

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
}
