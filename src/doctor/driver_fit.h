#pragma once
// Whether a driver runs a CUDA toolkit: what doctor checks, and what `install` warns about before
// it downloads a toolkit the driver cannot run. The driver is the probed one, or the one
// CUDAENV_DRIVER_VERSION names in its place.

#include <optional>
#include <string>

#include "core/target.h"
#include "core/version_detect.h"
#include "doctor/facts.h"
#include "doctor/probes.h"

namespace cudaenv {

// minor: it runs through minor-version compatibility, with gaps; major: no program starts.
enum class DriverShortfall { none, minor, major };

// cuDriverGetVersion's CUDA where the driver answered, else the driver's version against the
// CUDA major's floor (major) and the release's own driver (minor); none when nothing is known.
DriverShortfall driver_shortfall(const DriverProbe& driver, const Version& cuda, const CudaFacts& facts);
// The driver CUDA `cuda` wants: its release's own driver, else its major's floor.
std::string driver_needed(const Version& cuda, const CudaFacts& facts);
// What the shortfall does to programs built with CUDA `cuda`, and the driver it wants.
std::string shortfall_consequence(DriverShortfall shortfall, const Version& cuda, const CudaFacts& facts);
// "runs CUDA up to 12.4" or "is 550.54.14": what is known of the driver.
std::string driver_reach(const DriverProbe& driver);
// The newest CUDA release the driver runs fully, if one is known.
const CudaRelease* newest_runnable(const DriverProbe& driver, const CudaFacts& facts);

// CUDAENV_DRIVER_VERSION's driver (core/version_detect.h) in place of what was probed: its
// version, no cuDriverGetVersion answer (that was the loaded driver's), the probed GPUs kept.
void stand_in_driver(DriverProbe& driver, const DriverReading& reading);

// The driver and GPUs of `target` (selected at `origin`) in place of this machine's: the one
// place every check, doctor's and the extension scan's, learns of a target. `machine` is what
// was probed here, or null where nothing was.
DriverProbe target_driver(const Target& target, const std::string& origin, const DriverProbe* machine);

}  // namespace cudaenv
