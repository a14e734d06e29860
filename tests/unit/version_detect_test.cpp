#include <catch2/catch.hpp>

#include "core/version_detect.h"

using namespace cudaenv;

TEST_CASE("version detection reads version.json, cuda.h and the nvcc banner") {
  CHECK(version_from_version_json(R"({"cuda": {"name": "CUDA SDK", "version": "12.1.1"}, "cuda_nvcc": {}})")->str() ==
        "12.1.1");
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
}
