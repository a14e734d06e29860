#include "doctor/checks.h"

#include "doctor/check_helpers.h"
#include "doctor/check_versions.h"

namespace cudaenv {

using namespace doctor_detail;

BuildToolkit build_toolkit(const Probes& probes) {
  const CudaHomeProbe& home = probes.cuda_home;
  if (home.home && home.version) {
    return {home.version, home.home, "nvcc " + mm(*home.version) + " ($" + home.variable + "=" + home.home->string() + ")"};
  }
  const NvccProbe& nvcc = probes.nvcc;
  if (nvcc.resolved && nvcc.version) {
    return {nvcc.version, nvcc.resolved->parent_path().parent_path(),
            "nvcc " + mm(*nvcc.version) + " (" + nvcc.resolved->string() + ")"};
  }
  const ToolkitProbe& toolkit = probes.toolkit;
  if (toolkit.found && toolkit.version) {
    return {toolkit.version, toolkit.home, "CUDA " + mm(*toolkit.version) + " (" + toolkit.home.string() + ")"};
  }
  return {std::nullopt, std::nullopt, "no toolkit"};
}

std::vector<Finding> run_checks(const Probes& probes, const CudaFacts& facts) {
  std::vector<Finding> findings;
  auto add = [&](std::optional<Finding> finding) {
    if (finding) findings.push_back(std::move(*finding));
  };
  auto add_all = [&](std::vector<Finding> more) {
    for (Finding& finding : more) findings.push_back(std::move(finding));
  };
  add(check_selection(probes));
  add(check_driver_present(probes));
  add(check_driver_runs(probes, facts, "driver-toolkit", "the toolkit's", build_toolkit(probes).version));
  add(check_driver_runs(probes, facts, "driver-torch", "torch's", probes.python.torch_cuda));
  add(check_nvcc_path(probes));
  add(check_cuda_home(probes));
  add(check_library_path(probes));
  add(check_python(probes));
  add(check_toolkit_torch(probes, facts));
  add(check_deepspeed(probes, facts));
  add_all(check_toolkit_libraries(probes));
  add(check_deepspeed_skip(probes, facts));
  add(check_torch_build(probes, facts));
  add_all(check_gpus_toolkit(probes, facts));
  add_all(check_gpus_torch(probes, facts));
  add(check_arch_list(probes, facts));
  add(check_deepspeed_archs(probes, facts));
  add(check_compiler(probes, facts));
  add(check_facts(probes, facts));
  return findings;
}

bool has_error(const std::vector<Finding>& findings) {
  for (const Finding& finding : findings) {
    if (finding.severity == Severity::error) return true;
  }
  return false;
}

const char* severity_label(Severity severity) {
  switch (severity) {
    case Severity::ok: return "ok";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
    case Severity::info: return "info";
  }
  return "";
}

}  // namespace cudaenv
