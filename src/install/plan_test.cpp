#include <catch2/catch.hpp>

#include "install/plan.h"

using namespace cudaenv;

TEST_CASE("an archive is a wheel by its file name alone") {
  CHECK(is_wheel("/cache/13.2.2/nvidia_cuda_nvcc-13.2.86-py3-none-manylinux2014_x86_64.whl"));
  CHECK_FALSE(is_wheel("/cache/13.0.2/cuda_nvcc-linux-x86_64-13.0.88-archive.tar.xz"));
  CHECK_FALSE(is_wheel("nvidia_cuda_nvcc.whl.part"));
}
