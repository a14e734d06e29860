#pragma once
// `install` and the driver: before a toolkit is downloaded, a warning where the driver (read as
// doctor reads it, or CUDAENV_DRIVER_VERSION) cannot run it. Nothing is said where no driver is
// found: a build machine installs toolkits for other machines' GPUs.

#include <string>

#include "cli/session.h"
#include "util/result.h"

namespace cudaenv {

// `label` is the toolkit about to be installed ("13.0.2"); an error only for a bad
// CUDAENV_DRIVER_VERSION or broken shipped facts.
Status warn_driver_ceiling(const Session& session, const std::string& label);

}  // namespace cudaenv
