// The 1h finding (issue 36): the selected toolkit lacks a CUDA library the loader takes from
// another toolkit; pure, from the probe's data.
#include <catch2/catch.hpp>

#include "doctor/check_versions.h"

using namespace cudaenv;

namespace {

Probes minimal_13_2() {
  Probes p;
  p.toolkit.found = true;
  p.toolkit.name = "13.2.1";
  p.toolkit.version = Version{{13, 2, 1}};
  p.toolkit.home = "/home/u/.cudaenv/versions/13.2.1";
  p.toolkit_libraries_found.ran = true;
  return p;
}

}  // namespace

TEST_CASE("check_foreign_libraries names the libraries, where the loader takes them, and the component that adds them") {
  Probes p = minimal_13_2();
  CHECK_FALSE(doctor_detail::check_foreign_libraries(p));  // nothing taken from elsewhere: no line at all
  p.toolkit_libraries_found.foreign = {
      {"libnvrtc.so.13", "cuda_nvrtc", "/usr/local/cuda-13.0/lib/libnvrtc.so.13", "/usr/local/cuda-13.0", Version{{13, 0, 88}}},
      {"libnvrtc-builtins.so.13.0", "cuda_nvrtc", "/usr/local/cuda-13.0/lib/libnvrtc-builtins.so.13.0", "/usr/local/cuda-13.0",
       Version{{13, 0, 88}}}};
  auto found = doctor_detail::check_foreign_libraries(p);
  REQUIRE(found);
  CHECK(found->id == "toolkit-foreign-libraries");
  CHECK(found->severity == Severity::warning);
  CHECK(found->title ==
        "CUDA 13.2.1 has no cuda_nvrtc: programs load libnvrtc.so.13 from /usr/local/cuda-13.0/lib/libnvrtc.so.13 (CUDA 13.0); "
        "libnvrtc-builtins.so.13.0 from /usr/local/cuda-13.0/lib/libnvrtc-builtins.so.13.0 (CUDA 13.0)");
  CHECK(found->fixes == std::vector<std::string>{"cudaenv install 13.2.1 --force --component cuda_nvrtc"});
  p.toolkit_libraries_found.ran = false;
  CHECK_FALSE(doctor_detail::check_foreign_libraries(p));
}
