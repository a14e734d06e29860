#include <catch2/catch.hpp>

#include "core/version.h"

using namespace cudaenv;

static Version v(const char* text) { return *parse_version(text); }

TEST_CASE("parse_version accepts 1 to 4 numeric parts") {
  CHECK(v("12").parts == std::vector<int>{12});
  CHECK(v("12.1.1").parts == std::vector<int>{12, 1, 1});
  CHECK(v("11.8.0").str() == "11.8.0");
  for (const char* bad : {"", ".", "12.", ".1", "12..1", "v12", "12.x", "12.1.1.1.1", "-1", "12 .1", "1234567890"}) {
    INFO(bad);
    CHECK_FALSE(parse_version(bad));
  }
}

TEST_CASE("versions order numerically, not lexically") {
  CHECK(v("12.10") > v("12.9"));
  CHECK(v("12.1.1") > v("12.1.0"));
  CHECK(v("11.8.0") < v("12.0.0"));
  CHECK(v("12.1") < v("12.1.0"));
  CHECK(v("13.0") == v("13.0"));
}

TEST_CASE("a request matches the versions it is a prefix of") {
  CHECK(version_matches(v("12"), v("12.4.1")));
  CHECK(version_matches(v("12.1"), v("12.1.1")));
  CHECK(version_matches(v("12.1.1"), v("12.1.1")));
  CHECK_FALSE(version_matches(v("12.1"), v("12.10.0")));
  CHECK_FALSE(version_matches(v("12.1.1"), v("12.1")));
  CHECK_FALSE(version_matches(v("1"), v("12.1")));
}

TEST_CASE("nearest_version prefers the same major, then the closest minor, then newer") {
  std::vector<Version> installed{v("11.8.0"), v("12.1.1"), v("12.4.1"), v("13.0.0")};
  CHECK(nearest_version(v("12.3"), installed) == 2u);
  CHECK(nearest_version(v("12.2"), installed) == 1u);  // 12.1 is one minor away, 12.4 two
  CHECK(nearest_version(v("11.7"), installed) == 0u);
  CHECK(nearest_version(v("14"), installed) == 3u);
  CHECK_FALSE(nearest_version(v("12"), {}));
}

TEST_CASE("compute capabilities: major.minor, cuda.toml's arch entries and nvcc's arch names") {
  CHECK(parse_compute_capability("8.9")->str() == "8.9");
  CHECK_FALSE(parse_compute_capability("8"));
  CHECK_FALSE(parse_compute_capability("8.9.1"));
  CHECK_FALSE(parse_compute_capability("sm_89"));
  auto specific = parse_arch_entry("9.0a");
  REQUIRE(specific);
  CHECK(specific->capability.str() == "9.0");
  CHECK(specific->suffix == 'a');
  CHECK_FALSE(specific->ptx);
  auto ptx = parse_arch_entry("8.6+PTX");
  REQUIRE(ptx);
  CHECK((ptx->capability.str() == "8.6" && ptx->ptx && !ptx->suffix));
  CHECK(parse_arch_entry("10.0f+PTX")->suffix == 'f');
  CHECK_FALSE(parse_arch_entry("+PTX"));
  CHECK_FALSE(parse_arch_entry("sm_89"));
  CHECK_FALSE(parse_arch_entry("8.9A"));
  auto sm = parse_nvcc_arch("sm_120");
  REQUIRE(sm);
  CHECK((sm->capability.str() == "12.0" && !sm->ptx && !sm->suffix));
  CHECK(parse_nvcc_arch("compute_90")->ptx);
  CHECK(parse_nvcc_arch("sm_90a")->suffix == 'a');
  CHECK_FALSE(parse_nvcc_arch("sm_9"));
  CHECK_FALSE(parse_nvcc_arch("sm_99999"));
  CHECK(sm_name(*parse_compute_capability("8.9")) == "sm_89");
  // Native code for an arch runs on GPUs of its major with a minor no lower.
  CHECK(parse_compute_capability("8.6")->runs_on(*parse_compute_capability("8.9")));
  CHECK(parse_compute_capability("8.9")->runs_on(*parse_compute_capability("8.9")));
  CHECK_FALSE(parse_compute_capability("8.9")->runs_on(*parse_compute_capability("8.6")));
  CHECK_FALSE(parse_compute_capability("8.0")->runs_on(*parse_compute_capability("9.0")));
  CHECK(*parse_compute_capability("8.9") < *parse_compute_capability("10.0"));
  for (const char* good :
       {"8.9", "9.0a", "8.6+PTX", "10.0", "10.0f+PTX", "08.9", "123456789.987654321", "123456789.123456789a"}) {
    INFO(good);
    CHECK(parse_arch_entry(good));
  }
  // parse_version() takes at most 9 digits a number.
  for (const char* bad : {"89", "8.", ".9", "8.9ab", "8.9+ptx", "8.9+PTXX", "", "+PTX", "8.9A", "sm_89", "8.9.1", "1234567890.0",
                          "8.0123456789", "99999999999999999999.0", "-8.9", "8.9 "}) {
    INFO(bad);
    CHECK_FALSE(parse_arch_entry(bad));
  }
}

TEST_CASE("CUDA's integer form (CUDA_VERSION, cuDriverGetVersion) is major * 1000 + minor * 10") {
  CHECK(version_from_cuda_number(12040)->str() == "12.4");
  CHECK(version_from_cuda_number(11080)->str() == "11.8");
  CHECK(version_from_cuda_number(13000)->str() == "13.0");
  CHECK(version_from_cuda_number(999990)->str() == "999.99");
  CHECK_FALSE(version_from_cuda_number(0));
  CHECK_FALSE(version_from_cuda_number(999));
  CHECK_FALSE(version_from_cuda_number(-12040));
  CHECK_FALSE(version_from_cuda_number(1000000));
}

TEST_CASE("driver versions compare by number and keep their text") {
  auto driver = parse_driver_version("580.65.06");
  REQUIRE(driver);
  CHECK(driver->text == "580.65.06");
  CHECK(driver->number > parse_driver_version("550.54.14")->number);
  CHECK_FALSE(parse_driver_version("580.65.06 beta"));
}
