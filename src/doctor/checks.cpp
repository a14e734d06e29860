#include "doctor/checks.h"

#include "doctor/check_versions.h"
#include "torch/render.h"

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
  add_all(check_wsl(probes));
  add(check_driver_runs(probes, facts, "driver-toolkit", "the toolkit's", build_toolkit(probes).version));
  add(check_driver_runs(probes, facts, "driver-torch", "torch's", probes.python.torch_cuda));
  add(check_nvcc_path(probes));
  add(check_cuda_home(probes));
  add(check_cuda_home_path(probes));
  add(check_library_path(probes));
  add(check_cudnn_parts(probes));
  add(check_foreign_libraries(probes));
  add(check_python(probes));
  add(check_cuda_wheels(probes));
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
  add_all(check_extensions(probes, facts));
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

namespace cudaenv::doctor_detail {

std::string mm(const Version& version) { return major_minor(version).str(); }

Finding finding(std::string id, Severity severity, std::string title, std::string explanation, std::vector<std::string> fixes) {
  return Finding{std::move(id), severity, std::move(title), std::move(explanation), std::move(fixes)};
}

std::string use_toolkit_fix(const Version& version, const Probes& probes) {
  std::string wanted = mm(version);
  for (const std::string& name : probes.toolkit.installed) {
    auto installed = parse_version(name);
    if (installed && version_matches(major_minor(version), *installed)) return "cudaenv use " + wanted;
  }
  return "cudaenv install " + wanted + " && cudaenv use " + wanted;
}

std::string cuda_suffix(const std::optional<Version>& version) { return version ? " (CUDA " + mm(*version) + ")" : ""; }

std::string who_runs_what(const Probes& probes, const std::string& on_path) {
  const CudaHomeProbe& home = probes.cuda_home;
  std::string torch =
      home.home ? "$" + home.variable + "/bin/nvcc, " + (*home.home / "bin" / "nvcc").string() + cuda_suffix(home.version)
                : "the PATH one too (CUDA_HOME and CUDA_PATH are unset)";
  std::string cmake = probes.nvcc.cudacxx ? "$CUDACXX, " + *probes.nvcc.cudacxx : "the PATH one too (CUDACXX is unset)";
  return "A plain `nvcc` (make, scripts, your shell) runs " + on_path + "; torch's extension builds and DeepSpeed's ops run " +
         torch + "; CMake runs " + cmake + ".";
}

std::string public_torch_version(const std::string& version) { return version.substr(0, version.find('+')); }

std::string torch_fix(const Version& version, const Probes& probes, const CudaFacts& facts, bool keep_version) {
  bool keep = keep_version && !probes.python.torch_version.empty();
  std::string pointer = "cudaenv torch";
  if (keep) pointer += " --torch " + public_torch_version(probes.python.torch_version);
  pointer += " --cuda " + mm(version);
  if (!probes.python.interpreter || facts.torch_matrix.releases.empty()) return pointer;
  TorchQuery query;
  query.cuda = major_minor(version);
  query.cuda_origin = query.torch_origin = query.archs_origin = "doctor";
  if (probes.driver.version) {
    query.driver = probes.driver.version->text;
    query.driver_origin = "doctor";
  }
  for (const Gpu& gpu : probes.driver.gpus) query.archs.push_back(gpu.capability);
  // The installed release when it has a build for exactly this CUDA, else the newest that has one:
  // a nearest-minor build would leave the mismatch in place.
  if (keep) query.torch = public_torch_version(probes.python.torch_version);
  auto command = reinstall_command(facts.torch_matrix, query, probes.python.interpreter->string());
  if (keep && (!command || command->match != TorchMatch::exact)) {
    query.torch.reset();
    command = reinstall_command(facts.torch_matrix, query, probes.python.interpreter->string());
  }
  return command && command->match == TorchMatch::exact ? command->command : pointer;
}

}  // namespace cudaenv::doctor_detail
