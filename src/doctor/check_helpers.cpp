#include "doctor/check_helpers.h"

#include "torch/render.h"

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
