#pragma once
// `install` and the driver: before a toolkit is downloaded, a warning where the driver (read as
// doctor reads it, or CUDAENV_DRIVER_VERSION, or the selected target's) cannot run it. Nothing
// is said where no driver is found: a build machine installs toolkits for other machines' GPUs.

#include <optional>
#include <string>

#include "core/version.h"
#include "core/version_detect.h"
#include "doctor/facts.h"
#include "doctor/probes.h"
#include "store/targets.h"
#include "util/environment.h"
#include "util/file_system.h"

namespace cudaenv {

// The driver a toolkit is installed for: the selected target's, else `stand_in`
// (CUDAENV_DRIVER_VERSION), else this machine's, probed.
DriverProbe install_driver(const FileSystemView& fs, const EnvMap& env, const std::optional<SelectedTarget>& target,
                           const std::optional<DriverReading>& stand_in);

// What install says where `driver` cannot run CUDA `label` ("13.0.2"): the warning, then the advice.
struct DriverCeiling {
  std::string warning;
  std::string advice;
};
// nullopt where the driver runs it, or where no driver is known.
std::optional<DriverCeiling> driver_ceiling(const DriverProbe& driver, const std::string& label, const CudaFacts& facts);

}  // namespace cudaenv
