#pragma once
// The probes: they look at the machine (driver library, files, programs, Python) and fill
// in Probes. Each may find nothing; that is recorded, never an error.

#include <chrono>
#include <functional>
#include <optional>

#include "core/layout.h"
#include "core/selection.h"
#include "doctor/probe_results.h"
#include "util/environment.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

struct ProbeContext {
  const FileSystemView& fs;
  const EnvMap& env;
  fs::path cwd;
  Layout layout;
  const SelectionOutcome& selection;  // a failed one still says what was asked
  std::optional<fs::path> python;     // --python
  std::chrono::milliseconds timeout;  // for each of the driver and Python probes
};

Probes run_probes(const ProbeContext& context);

// Called with the name of each driver call before it is made, so a crash can be placed.
using ProbeStage = std::function<void(const char*)>;

// dlopen("libcuda.so.1") and the driver API; the driver version from NVML, else /sys or /proc.
// In this process: only the child `cudaenv doctor --driver-probe` calls it.
DriverProbe probe_driver_here(const FileSystemView& fs, const ProbeStage& stage);
// The child's side: probe_driver_here, its stages and its answer on stdout.
void print_driver_probe(const FileSystemView& fs);
// The driver probed in that child, given at most `timeout`; a child that crashes, hangs or
// answers nonsense is a DriverProbe whose problem says so.
DriverProbe probe_driver(const FileSystemView& fs, const EnvMap& env, std::chrono::milliseconds timeout);

// The interpreter (--python, else python3/python on PATH) asked about torch and DeepSpeed.
PythonProbe probe_python(const FileSystemView& fs, const EnvMap& env, const std::optional<fs::path>& python,
                         std::chrono::milliseconds timeout);

}  // namespace cudaenv
