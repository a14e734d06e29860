#include <catch2/catch.hpp>

#include "install/plan.h"

using namespace cudaenv;

TEST_CASE("an install plan is a plain value that reads back as written") {
  InstallPlan plan{"13.2.2",
                   "pypi",
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
}
