#pragma once
// How many cores an install may keep busy.

namespace cudaenv {

// The cores this process may run on (its CPU affinity, which taskset and container cpusets
// narrow), at least 1; std::thread::hardware_concurrency counts every online core instead.
unsigned usable_cores();

}  // namespace cudaenv
