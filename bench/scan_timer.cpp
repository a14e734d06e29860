// bench/scan_timer RUNS TORCH_DIR STDLIB SYS_PATH...: times extensions/scan.h's scan_extensions, what
// issue 36's scan adds to `cudaenv doctor` once the Python probe has answered, RUNS times in this
// process (the first run reads the files from disk or the page cache; the rest find them mapped
// again). Prints the first run and the median, minimum and maximum of the others, in ms.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

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
  std::vector<double> times;
  std::size_t modules = 0;
  for (int run = 0; run < runs; ++run) {
    cudaenv::ExtensionScan scan;
    scan.archs = {cudaenv::ComputeCapability(9, 0)};
    auto started = std::chrono::steady_clock::now();
    cudaenv::scan_extensions(cudaenv::RealFileSystem(), request, scan);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
    modules = scan.module_count;
  }
  double first = times.front();
  times.erase(times.begin());
  std::sort(times.begin(), times.end());
  std::printf("%zu modules inspected; first run %.1f ms; then median %.1f ms (min %.1f, max %.1f) of %zu runs\n", modules, first,
              times[times.size() / 2], times.front(), times.back(), times.size());
  return 0;
}
