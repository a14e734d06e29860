#include <catch2/catch.hpp>

#include <sched.h>

#include "install/cores.h"

using namespace cudaenv;

TEST_CASE("usable cores follow the CPU affinity, as taskset sets it") {
  cpu_set_t all;
  REQUIRE(sched_getaffinity(0, sizeof all, &all) == 0);
  CHECK(usable_cores() == static_cast<unsigned>(CPU_COUNT(&all)));
  int first = 0;
  while (!CPU_ISSET(first, &all)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  unsigned narrowed = usable_cores();
  REQUIRE(sched_setaffinity(0, sizeof all, &all) == 0);
  CHECK(narrowed == 1u);
}
