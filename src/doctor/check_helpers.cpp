#include "doctor/check_helpers.h"

namespace cudaenv::doctor_detail {

std::string mm(const Version& version) { return major_minor(version).str(); }

Finding finding(std::string id, Severity severity, std::string title, std::string explanation,
                std::vector<std::string> fixes) {
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

std::string torch_fix(const Version& version, const Probes& probes, bool keep_version) {
  std::string command = "cudaenv torch";
  if (keep_version && !probes.python.torch_version.empty()) command += " --torch " + public_torch_version(probes.python.torch_version);
  return command + " --cuda " + mm(version);
}

}  // namespace cudaenv::doctor_detail
