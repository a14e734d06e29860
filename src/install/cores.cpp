#include "install/cores.h"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace cudaenv {

unsigned usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
}

}  // namespace cudaenv
