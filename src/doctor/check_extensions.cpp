// The compiled extensions the probed interpreter can import: grouped by package, what keeps
// each from loading or from running on a GPU here, and the fix `cudaenv torch --with` would give
// for it (the same advice). Healthy ones make a single line.
#include <algorithm>

#include "doctor/check_versions.h"
#include "torch/matrix.h"
#include "util/strings.h"

namespace cudaenv::doctor_detail {

namespace {

// The CUDA libraries whose soname major is the CUDA major they come with.
bool is_cuda_runtime_library(const std::string& soname) {
  for (const char* stem : {"libcudart.so.", "libcublas.so.", "libcublasLt.so.", "libnvrtc.so.", "libnvJitLink.so."}) {
    if (starts_with(soname, stem)) return true;
  }
  return false;
}

std::optional<int> soname_major(const std::string& soname) {
  size_t dot = soname.find(".so.");
  if (dot == std::string::npos) return std::nullopt;
  auto major = parse_decimal(split(soname.substr(dot + 4), '.')[0], 999);
  if (!major) return std::nullopt;
  return static_cast<int>(*major);
}

std::string module_name(const ExtensionModule& module) { return module.file.filename().string(); }

std::string abi_name(bool cxx11) {
  return cxx11 ? "the new ABI (_GLIBCXX_USE_CXX11_ABI=1)" : "the old ABI (_GLIBCXX_USE_CXX11_ABI=0)";
}

std::string arch_names(const KernelCoverage& kernels) {
  std::vector<std::string> names;
  for (const ArchEntry& entry : kernels.sass)
    names.push_back(sm_name(entry.capability) + (entry.suffix ? std::string(1, entry.suffix) : ""));
  for (const ArchEntry& entry : kernels.ptx)
    names.push_back("PTX compute_" + std::to_string(entry.capability.major()) + std::to_string(entry.capability.minor()));
  return names.empty() ? "none" : join(names, ", ");
}

struct PackageProblems {
  std::string title;  // of the first, the one that stops it soonest
  std::vector<std::string> lines;
  size_t broken_modules = 0;
};

PackageProblems problems_of(const ExtensionPackage& package, const Probes& probes) {
  PackageProblems out;
  const ExtensionScan& scan = probes.extensions;
  std::string label = package.name + " " + package.version;
  std::string torch = public_torch_version(probes.python.torch_version);
  auto title = [&](const std::string& text) {
    if (out.title.empty()) out.title = text;
  };
  for (const ExtensionModule& module : package.modules) {
    size_t before = out.lines.size();
    if (const auto& missing = module.missing_symbols) {
      std::string needs = module_name(module) + ": undefined symbol " + missing->example +
                          (missing->count > 1 ? " (and " + std::to_string(missing->count - 1) + " more)" : "");
      if (missing->other_abi && scan.torch_cxx11_abi) {
        title(label + " will not load: built with the other C++ ABI");
        out.lines.push_back(needs + ": built with the other C++ ABI; torch uses " + abi_name(*scan.torch_cxx11_abi));
      } else {
        std::string which = package.built_for_torch ? " (torch " + *package.built_for_torch + ")" : "";
        title(label + " will not load: built for another torch" + which);
        out.lines.push_back(needs + ": built for another torch" + which + "; this one is torch " + torch);
      }
    }
    for (const MissingLibrary& library : module.missing_libraries) {
      auto major = soname_major(library.soname);
      const auto& cuda = probes.python.torch_cuda;
      if (is_cuda_runtime_library(library.soname) && major && cuda && *major != cuda->major()) {
        title(label + " will not load: built for CUDA " + std::to_string(*major) + ", torch uses CUDA " + mm(*cuda));
        out.lines.push_back(module_name(module) + " needs " + library.soname + ": built for CUDA " + std::to_string(*major) +
                            ", torch uses CUDA " + mm(*cuda));
      } else {
        title(label + " will not load: " + library.soname + " is not found");
        out.lines.push_back(module_name(module) + " needs " + library.soname +
                            ", which the loader finds neither among torch's libraries nor in RUNPATH, LD_LIBRARY_PATH or "
                            "ld.so.cache");
      }
    }
    if (module.kernels && !module.kernels->uncovered.empty()) {
      std::vector<std::string> gpus;
      for (const ComputeCapability& arch : module.kernels->uncovered) gpus.push_back(sm_name(arch));
      title(label + " has no kernel for " + join(gpus, ", ") + " (" + scan.archs_source + ")");
      out.lines.push_back(module_name(module) + ": no kernel for " + join(gpus, ", ") + ": has " + arch_names(*module.kernels) +
                          "; it fails with \"no kernel image is available for execution on the device\"");
    }
    if (out.lines.size() > before) ++out.broken_modules;
  }
  return out;
}

ExtensionTarget target_of(const Probes& probes, const CudaFacts& facts) {
  const ExtensionScan& scan = probes.extensions;
  ExtensionTarget target;
  target.torch = parse_version(public_torch_version(probes.python.torch_version)).value_or(Version{{0, 0, 0}});
  target.cuda = probes.python.torch_cuda;
  if (target.cuda) target.cuda = major_minor(*target.cuda);
  target.index_url = facts.torch_matrix.index_url + "/" + (target.cuda ? cuda_variant_tag(*target.cuda) : "cpu");
  target.cxx11_abi = scan.torch_cxx11_abi.value_or(!(target.torch < facts.extensions.cxx11_from));
  target.python_tag = scan.python_tag;
  target.platform = scan.platform;
  target.archs = scan.archs;
  target.archs_source = scan.archs_source;
  target.memory_available = scan.memory_available;
  target.cores = probes.extension_fixes.cores;
  target.mirror = probes.extension_fixes.mirror;
  target.reinstall = true;
  for (const std::string& name : probes.toolkit.installed) {
    auto installed = parse_version(name);
    if (installed && target.cuda && version_matches(*target.cuda, *installed)) target.toolkit_installed = true;
  }
  return target;
}

// What the fix asks for: the installed release (its public part), except on the PyTorch index,
// where the release that pairs with this torch is the index's to pick.
ExtensionRequest request_of(const ExtensionPackage& package, const ExtensionEntry& entry) {
  ExtensionRequest request{entry.name, std::nullopt};
  if (entry.kind != Publishing::pytorch_index && !package.version.empty())
    request.version = public_torch_version(package.version);
  return request;
}

std::string pip_of(const Probes& probes) {
  return (probes.python.interpreter ? shell_word(probes.python.interpreter->string()) : std::string("python")) + " -m pip";
}

Finding package_finding(const ExtensionPackage& package, PackageProblems problems, const Probes& probes, const CudaFacts& facts) {
  ExtensionTarget target = target_of(probes, facts);
  ExtensionEntry entry = entry_for(facts.extensions, package.name);
  ExtensionAdvice advice = advise(entry, request_of(package, entry), target, probes.extension_fixes.wheels);
  std::string explanation = join(problems.lines, "\n");
  explanation += "\nWhy this fix: " + advice.why + ".";
  for (const std::string& unreachable : advice.unreachable) explanation += "\nCould not reach " + unreachable + ".";
  std::string fix = render_fix(pip_of(probes), target.index_url, advice);
  return finding("extension-" + entry.name, Severity::error, problems.title, explanation,
                 fix.empty() ? std::vector<std::string>{} : std::vector<std::string>{fix});
}

std::string healthy_line(size_t healthy, const Probes& probes) {
  const ExtensionScan& scan = probes.extensions;
  std::string text = std::to_string(healthy) + (healthy == 1 ? " extension loads" : " extensions load") + " with torch " +
                     public_torch_version(probes.python.torch_version);
  if (scan.archs.empty()) return text + " (no GPU or project arch to check their kernels for)";
  std::vector<std::string> archs;
  for (const ComputeCapability& arch : scan.archs) archs.push_back(sm_name(arch));
  return text + " and " + (healthy == 1 ? "has" : "have") + " kernels for " + join(archs, ", ");
}

}  // namespace

std::vector<Finding> check_extensions(const Probes& probes, const CudaFacts& facts) {
  const ExtensionScan& scan = probes.extensions;
  if (!scan.ran) {
    if (!probes.python.has_torch || scan.skipped.empty()) return {};
    return {finding("extensions", Severity::info, "compiled extensions not checked: " + scan.skipped)};
  }
  std::vector<Finding> findings;
  size_t healthy = 0;
  for (const ExtensionPackage& package : scan.packages) {
    PackageProblems problems = problems_of(package, probes);
    healthy += package.modules.size() - problems.broken_modules;
    if (!problems.lines.empty()) findings.push_back(package_finding(package, std::move(problems), probes, facts));
  }
  if (!scan.unreadable.empty()) {
    findings.push_back(finding("extension-unreadable", Severity::warning,
                               std::to_string(scan.unreadable.size()) + " extension files could not be read",
                               join(scan.unreadable, "\n")));
  }
  if (healthy > 0) findings.push_back(finding("extensions", Severity::ok, healthy_line(healthy, probes)));
  return findings;
}

}  // namespace cudaenv::doctor_detail

namespace cudaenv {

using namespace doctor_detail;

std::vector<std::string> extension_wheels_wanted(const Probes& probes, const CudaFacts& facts) {
  std::vector<std::string> urls;
  if (!probes.extensions.ran) return urls;
  ExtensionTarget target = target_of(probes, facts);
  for (const ExtensionPackage& package : probes.extensions.packages) {
    if (problems_of(package, probes).lines.empty()) continue;
    const ExtensionEntry* entry = facts.extensions.find(package.name);
    if (!entry) continue;
    for (const std::string& url : wanted_wheels(facts.extensions, {request_of(package, *entry)}, target)) urls.push_back(url);
  }
  return urls;
}

}  // namespace cudaenv
