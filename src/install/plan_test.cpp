#include <catch2/catch.hpp>

#include "install/plan.h"

using namespace cudaenv;

TEST_CASE("an install plan is a plain value that reads back as written") {
  InstallPlan plan{"13.2.2",
                   InstallSource::pypi,
                   "https://pypi.org/simple",
                   "https://f/cuda_toolkit.whl",
                   std::string(64, 'b'),
                   {{"cuda_nvcc", "13.2.86", "https://f/nvcc.whl", std::string(64, 'c'), 44042846, "nvidia-cuda-nvcc"},
                    {"cuda_cudart", "13.2.86", "https://f/rt.tar.xz", std::string(64, 'd'), 12, ""}}};
  auto back = parse_plan(plan_json(plan).dump(), "plan.json");
  REQUIRE(back.ok());
  CHECK(*back == plan);
  auto broken = parse_plan(R"({"label": "13.2.2", "source": "pypi", "origin": "x", "pinned_by": {"url": "", "sha256": ""},
                               "files": [{"component": "c", "version": "1", "url": "u", "sha256": "s", "size": "12"}]})",
                           "cuda.lock");
  REQUIRE(!broken.ok());
  CHECK(broken.error().message.find("cuda.lock") == 0);
  auto unknown = parse_plan(R"({"label": "13.2.2", "source": "conda", "origin": "x", "pinned_by": {"url": "", "sha256": ""},
                                "files": []})",
                            "plan.json");
  REQUIRE(!unknown.ok());
  CHECK(unknown.error().message == "plan.json: its source \"conda\" is neither redist nor pypi");
}

TEST_CASE("an archive is a wheel by its file name alone") {
  CHECK(is_wheel("/cache/13.2.2/nvidia_cuda_nvcc-13.2.86-py3-none-manylinux2014_x86_64.whl"));
  CHECK_FALSE(is_wheel("/cache/13.0.2/cuda_nvcc-linux-x86_64-13.0.88-archive.tar.xz"));
  CHECK_FALSE(is_wheel("nvidia_cuda_nvcc.whl.part"));
}
