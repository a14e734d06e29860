#pragma once
// Running a helper program (nvcc --version, a Python probe) and capturing its output.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/environment.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

struct ProcessOutput {
  int exit_code = 0;  // 128+N when killed by signal N
  std::string out;
  std::string err;
};

// Runs argv[0] (searched on PATH when it has no '/') with stdin from /dev/null.
// It runs in a process group of its own, killed with everything in it once it ends, so
// nothing it starts outlives it. A run past `timeout` or printing more than 1 MiB on a
// stream is killed and reported as an error naming the command.
Result<ProcessOutput> run_capture(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                                  const EnvMap* env = nullptr);

// The error after an exec of `program` failed with `error_number` (errno): not found (127) or
// found but not runnable (126), as a shell says.
Error exec_failure(const std::string& program, int error_number);

// The cores this process may run on (its CPU affinity, which taskset and container cpusets
// narrow), at least 1; std::thread::hardware_concurrency counts every online core instead.
unsigned usable_cores();

// MemAvailable of /proc/meminfo under `machine_root` (a test's stand-in machine), in bytes; none
// where the file or the line is missing or malformed.
std::optional<std::uint64_t> memory_available(const FileSystemView& fs, const std::filesystem::path& machine_root = "/");

}  // namespace cudaenv
