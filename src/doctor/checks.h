#pragma once
// The checks: pure functions from what the probes found to findings, each with why it
// matters and the commands that fix it.

#include <string>
#include <vector>

#include "doctor/facts.h"
#include "doctor/probes.h"

namespace cudaenv {

// info: something worth knowing that is neither a passed check nor a problem (torch is not
// installed, a check had no facts to go on).
enum class Severity { ok, warning, error, info };

struct Finding {
  std::string id;  // stable name for scripts: toolkit-torch, driver-toolkit, ...
  Severity severity = Severity::ok;
  std::string title;
  std::string explanation;
  std::vector<std::string> fixes;  // shell commands, best first
};

// The toolkit builds use: what torch's cpp_extension picks ($CUDA_HOME, else the nvcc on
// PATH), else the one cudaenv selects.
struct BuildToolkit {
  std::optional<Version> version;
  std::optional<fs::path> home;
  std::string label;  // "nvcc 11.8 ($CUDA_HOME=/...)" for messages
};
BuildToolkit build_toolkit(const Probes& probes);

std::vector<Finding> run_checks(const Probes& probes, const CudaFacts& facts);

// The prebuilt wheel URLs the fixes for broken extensions would name: cmd_doctor asks a
// WheelLookup about them, into probes.extension_fixes.wheels, before run_checks.
std::vector<std::string> extension_wheels_wanted(const Probes& probes, const CudaFacts& facts);

bool has_error(const std::vector<Finding>& findings);
const char* severity_label(Severity severity);

}  // namespace cudaenv
