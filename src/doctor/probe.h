#pragma once
// The probes: they look at the machine (driver library, files, programs, Python) and fill
// in Probes. Each may find nothing; that is recorded, never an error.

#include <chrono>
#include <optional>

#include "core/layout.h"
#include "core/selection.h"
#include "doctor/probes.h"
#include "util/environment.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

struct ProbeContext {
  const FileSystemView& fs;
  const EnvMap& env;
  fs::path cwd;
  Layout layout;
  const Result<Selection>& selection;
  std::optional<fs::path> python;  // --python
  std::chrono::milliseconds python_timeout;
};

Probes run_probes(const ProbeContext& context);

// dlopen("libcuda.so.1") and the driver API; the driver version from NVML, else /sys or /proc.
DriverProbe probe_driver(const FileSystemView& fs);

// The interpreter (--python, else python3/python on PATH) asked about torch and DeepSpeed.
PythonProbe probe_python(const FileSystemView& fs, const EnvMap& env, const std::optional<fs::path>& python,
                         std::chrono::milliseconds timeout);

}  // namespace cudaenv
