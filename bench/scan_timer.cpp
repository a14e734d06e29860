// bench/scan_timer RUNS TORCH_DIR STDLIB SYS_PATH...: times extensions/scan.h's scan_extensions, what
// issue 36's scan adds to `cudaenv doctor` once the Python probe has answered, RUNS times in this
// process (the first run reads the files from disk or the page cache; the rest find them mapped
// again). Prints the first run and the median, minimum and maximum of the others, in ms of wall
// time, and the median CPU time (user + system) of a run: the figure a loaded machine moves least.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "extensions/scan.h"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: scan_timer RUNS TORCH_DIR STDLIB SYS_PATH...\n");
    return 2;
  }
  int runs = std::max(2, std::atoi(argv[1]));
  cudaenv::ScanRequest request;
  request.torch_dir = argv[2];
  request.torch_cuda_major = 13;
  request.stdlib = argv[3];
  for (int i = 4; i < argc; ++i) request.sys_path.emplace_back(argv[i]);
  auto cpu_ms = [] {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
  };
  std::vector<double> times, cpu;
  std::size_t modules = 0;
  for (int run = 0; run < runs; ++run) {
    cudaenv::ExtensionScan scan;
    scan.archs = {cudaenv::ComputeCapability(9, 0)};
    auto started = std::chrono::steady_clock::now();
    double cpu_started = cpu_ms();
    cudaenv::scan_extensions(cudaenv::RealFileSystem(), request, scan);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
    cpu.push_back(cpu_ms() - cpu_started);
    modules = scan.module_count;
  }
  double first = times.front();
  times.erase(times.begin());
  std::sort(times.begin(), times.end());
  std::sort(cpu.begin(), cpu.end());
  std::printf("%zu modules inspected; first run %.1f ms; then median %.1f ms (min %.1f, max %.1f) of %zu runs; CPU %.1f ms\n",
              modules, first, times[times.size() / 2], times.front(), times.back(), times.size(), cpu[cpu.size() / 2]);
  return 0;
}
