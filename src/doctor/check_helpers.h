#pragma once
// Shared by the check files: building findings and the fix commands they offer.

#include <string>
#include <vector>

#include "doctor/checks.h"

namespace cudaenv::doctor_detail {

// "12.1.1" -> "12.1"
std::string mm(const Version& version);

Finding finding(std::string id, Severity severity, std::string title, std::string explanation = {},
                std::vector<std::string> fixes = {});

// `cudaenv use V`, preceded by `cudaenv install V` unless a matching toolkit is installed.
std::string use_toolkit_fix(const Version& version, const Probes& probes);

// The command that reinstalls torch for CUDA `version` into the probed interpreter, as
// `cudaenv torch` chooses it (for the driver and GPUs probed); where it cannot choose, the
// `cudaenv torch` line that explains why. `keep_version` pins the installed torch version; leave
// it off when that torch has no build for `version` (a new GPU needs a newer torch too).
std::string torch_fix(const Version& version, const Probes& probes, const CudaFacts& facts, bool keep_version = true);

// torch.__version__ without its local part: 2.1.2+cu121 -> 2.1.2
std::string public_torch_version(const std::string& version);

}  // namespace cudaenv::doctor_detail
