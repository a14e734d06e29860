// Checks about GPU architectures: the GPUs against the toolkit and torch's kernels, and
// TORCH_CUDA_ARCH_LIST against the toolkit.
#include <algorithm>

#include "doctor/check_versions.h"
#include "util/strings.h"

namespace cudaenv::doctor_detail {

namespace {

std::string gpu_label(const Gpu& gpu) {
  return gpu.name + " (compute capability " + gpu.capability.str() + ", " + sm_name(gpu.capability) + ")";
}

// Torch's compiled arch list ("sm_86", "sm_90a", "compute_90"): compute_XY is JIT-compiled
// for any GPU at least this new, sm_90a runs only on exactly 9.0.
bool torch_runs_on(const std::vector<std::string>& arch_list, const ComputeCapability& cc) {
  return std::any_of(arch_list.begin(), arch_list.end(), [&](const std::string& entry) {
    auto arch = parse_nvcc_arch(entry);
    if (!arch) return false;
    if (arch->ptx) return arch->capability <= cc;
    if (arch->suffix) return arch->capability == cc;
    return arch->capability.runs_on(cc);
  });
}

// One TORCH_CUDA_ARCH_LIST entry ("8.6", "9.0a", "8.9+PTX", "Ampere") -> capabilities; none if unknown.
std::optional<std::vector<ComputeCapability>> arch_entry_capabilities(const std::string& entry, const CudaFacts& facts) {
  std::string name = entry.substr(0, entry.find("+PTX"));
  if (auto named = facts.named_arches.find(name); named != facts.named_arches.end()) {
    std::vector<ComputeCapability> out;
    for (const std::string& value : named->second) {
      if (auto capability = parse_compute_capability(value)) out.push_back(*capability);
    }
    return out;
  }
  auto arch = parse_arch_entry(entry);
  if (!arch || (arch->suffix && arch->suffix != 'a' && arch->suffix != 'f')) return std::nullopt;
  return std::vector<ComputeCapability>{arch->capability};
}

// Whether the arch list names archs itself; "native" (torch's "the visible GPUs") does not.
bool names_archs(const ArchListProbe& list) {
  return !list.entries.empty() && list.entries != std::vector<std::string>{"native"};
}

// Whether torch's _get_cuda_arch_flags takes the entry: a named arch, or one of its
// supported_arches with or without "+PTX"; anything else raises ValueError.
bool torch_accepts(const std::string& entry, const CudaFacts& facts) {
  std::string name = entry.substr(0, entry.find("+PTX"));
  if (facts.named_arches.count(name)) return true;
  const auto& supported = facts.torch_supported_arches;
  return std::find(supported.begin(), supported.end(), name) != supported.end();
}

// nvcc cannot target the GPU's own arch, but code for an older minor of its major runs on it
// (sm_86 on an 8.9 GPU). Builds that target the GPU itself still stop: torch extensions
// without TORCH_CUDA_ARCH_LIST, CMake's "native", DeepSpeed's JIT.
Finding older_minor_finding(const Probes& probes, const CudaFacts& facts, const BuildToolkit& build, const CudaRelease& release,
                            const Gpu& gpu) {
  const ComputeCapability& cc = gpu.capability;
  std::optional<ComputeCapability> nearest;
  for (const ComputeCapability& arch : release.archs) {
    bool integrated =
        std::find(facts.integrated_archs.begin(), facts.integrated_archs.end(), arch) != facts.integrated_archs.end();
    if (arch.runs_on(cc) && (!integrated || arch == cc)) nearest = arch;
  }
  const CudaRelease* fits = facts.first_building_for(cc);
  std::string why = "nvcc " + mm(release.version) + " cannot target " + sm_name(cc) +
                    (fits ? " (CUDA first supports it in " + fits->version.str() + ")" : "") +
                    ", so builds for this GPU's own arch (torch extensions without TORCH_CUDA_ARCH_LIST, CMake's "
                    "\"native\", DeepSpeed's JIT) stop with \"Unsupported gpu architecture 'compute_" +
                    std::to_string(cc.major()) + std::to_string(cc.minor()) + "'\".";
  std::vector<std::string> fixes;
  if (fits) fixes.push_back(use_toolkit_fix(fits->version, probes));
  if (nearest) {
    why += " Code built for " + sm_name(*nearest) + " runs on it.";
    fixes.push_back("export TORCH_CUDA_ARCH_LIST=" + posix_quote(nearest->str()));
  }
  // An explicit arch list decides what gets built; the arch-list check judges it.
  Severity severity = names_archs(probes.arch_list) ? Severity::warning : Severity::error;
  return finding("gpu-toolkit", severity, build.label + " cannot target " + gpu_label(gpu), why, fixes);
}

}  // namespace

std::vector<Finding> check_gpus_toolkit(const Probes& probes, const CudaFacts& facts) {
  std::vector<Finding> findings;
  BuildToolkit build = build_toolkit(probes);
  const CudaRelease* release = build.version ? facts.release(*build.version) : nullptr;
  if (!release) return findings;
  for (const Gpu& gpu : probes.driver.gpus) {
    const ComputeCapability& cc = gpu.capability;
    if (release->builds_for(cc)) {
      findings.push_back(finding("gpu-toolkit", Severity::ok, build.label + " builds for " + gpu_label(gpu)));
      continue;
    }
    if (release->runs_on(cc)) {
      findings.push_back(older_minor_finding(probes, facts, build, *release, gpu));
      continue;
    }
    bool too_new = release->archs.empty() || cc > release->archs.back();
    const CudaRelease* fits = too_new ? facts.first_building_for(cc) : facts.last_building_for(cc);
    std::string why = too_new ? "nvcc " + mm(release->version) + " cannot generate code for " + sm_name(cc) +
                                    (fits ? "; CUDA first supports it in " + fits->version.str() : "") + "."
                              : "CUDA " + mm(release->version) + " dropped " + sm_name(cc) +
                                    (fits ? "; the last toolkit that builds for it is " + fits->version.str() : "") + ".";
    why += " Extensions built with this toolkit will fail with \"no kernel image is available for execution on the device\".";
    std::vector<std::string> fixes;
    if (fits) fixes.push_back(use_toolkit_fix(fits->version, probes));
    findings.push_back(finding("gpu-toolkit", Severity::error, build.label + " cannot build for " + gpu_label(gpu), why, fixes));
  }
  return findings;
}

std::vector<Finding> check_gpus_torch(const Probes& probes, const CudaFacts& facts) {
  std::vector<Finding> findings;
  const PythonProbe& python = probes.python;
  if (!python.torch_cuda || python.arch_list.empty()) return findings;
  std::string torch = "torch " + python.torch_version;
  for (const Gpu& gpu : probes.driver.gpus) {
    if (torch_runs_on(python.arch_list, gpu.capability)) {
      findings.push_back(finding("gpu-torch", Severity::ok, torch + " has kernels for " + gpu_label(gpu)));
      continue;
    }
    std::vector<std::string> fixes;
    if (auto cuda = facts.torch_cuda_for(gpu.capability)) fixes.push_back(torch_fix(*cuda, probes, facts, false));
    findings.push_back(finding("gpu-torch", Severity::error, torch + " has no kernels for " + gpu_label(gpu),
                               "Its arch list is " + join(python.arch_list, " ") +
                                   ", so every CUDA call fails with \"no kernel image is "
                                   "available for execution on the device\". Install a torch build that includes " +
                                   sm_name(gpu.capability) + ".",
                               fixes));
  }
  return findings;
}

std::optional<Finding> check_arch_list(const Probes& probes, const CudaFacts& facts) {
  const ArchListProbe& list = probes.arch_list;
  BuildToolkit build = build_toolkit(probes);
  const CudaRelease* release = build.version ? facts.release(*build.version) : nullptr;
  if (list.entries.empty() || !release) return std::nullopt;
  if (!names_archs(list)) {
    // _get_cuda_arch_flags on pytorch/pytorch main treats "native" like an unset list.
    return finding("arch-list", Severity::info, list.source + " is \"native\": torch builds for the visible GPUs",
                   "The GPU checks above judge those. torch releases that predate \"native\" raise ValueError "
                   "\"Unknown CUDA arch (native)\".");
  }
  std::vector<std::string> kept, unknown, unbuildable, torch_rejects;
  for (const std::string& entry : list.entries) {
    auto capabilities = arch_entry_capabilities(entry, facts);
    if (!capabilities) unknown.push_back(entry);
    else if (!std::all_of(capabilities->begin(), capabilities->end(),
                          [&](const ComputeCapability& cc) { return release->builds_for(cc); }))
      unbuildable.push_back(entry);
    else if (!torch_accepts(entry, facts)) torch_rejects.push_back(entry);
    else kept.push_back(entry);
  }
  std::string where = list.source + " (" + join(list.entries, ";") + ")";
  if (unknown.empty() && unbuildable.empty() && torch_rejects.empty()) {
    return finding("arch-list", Severity::ok, build.label + " builds every arch in " + where);
  }
  std::vector<std::string> fixes;
  if (list.source == "TORCH_CUDA_ARCH_LIST") {
    fixes.push_back(kept.empty() ? "unset TORCH_CUDA_ARCH_LIST" : "export TORCH_CUDA_ARCH_LIST=" + posix_quote(join(kept, ";")));
  } else {
    std::vector<std::string> quoted;
    for (const std::string& entry : kept) quoted.push_back(json_quote(entry));
    fixes.push_back("# in " + list.source + ": arch = [" + join(quoted, ", ") + "]");
  }
  if (!unbuildable.empty()) {
    return finding("arch-list", Severity::error,
                   build.label + " cannot build " + join(unbuildable, ", ") + " named in " + list.source,
                   "nvcc fails with \"Unsupported gpu architecture\" for each of them.", fixes);
  }
  if (!torch_rejects.empty()) {
    // nvcc builds them, but torch's extension builds read the list too and stop at them.
    std::string torch = probes.python.has_torch ? "torch " + probes.python.torch_version : "torch";
    return finding("arch-list", probes.python.has_torch ? Severity::error : Severity::warning,
                   torch + " rejects " + join(torch_rejects, ", ") + " named in " + list.source,
                   "nvcc " + mm(release->version) +
                       " builds them, but torch.utils.cpp_extension takes only the archs "
                       "it knows (no \"f\" suffix, no 8.8, no 10.1) and raises ValueError \"Unknown CUDA arch (" +
                       torch_rejects.front() + ") or GPU not supported\" for every CUDA extension build.",
                   fixes);
  }
  return finding("arch-list", Severity::warning, list.source + " names unknown archs: " + join(unknown, ", "),
                 "torch.utils.cpp_extension raises \"Unknown CUDA arch (X) or GPU not supported\" for them.", fixes);
}

// DeepSpeed's ahead-of-time op builds (DS_BUILD_OPS=1) default to "6.0;6.1;7.0" plus newer
// archs per CUDA 11/12 branch; it has no CUDA 13 branch, so there the default names archs
// nvcc 13 dropped (DeepSpeed's op_builder/builder.py, unverified upstream: hence a warning).
std::optional<Finding> check_deepspeed_archs(const Probes& probes, const CudaFacts& facts) {
  BuildToolkit build = build_toolkit(probes);
  const CudaRelease* release = build.version ? facts.release(*build.version) : nullptr;
  if (!probes.python.deepspeed_version || !release || names_archs(probes.arch_list)) return std::nullopt;
  static const ComputeCapability kDeepSpeedDefaults[] = {{6, 0}, {6, 1}, {7, 0}};
  std::vector<std::string> dropped;
  for (const ComputeCapability& arch : kDeepSpeedDefaults) {
    if (!release->builds_for(arch)) dropped.push_back(arch.str());
  }
  if (dropped.empty()) return std::nullopt;
  std::vector<std::string> gpu_archs;
  for (const Gpu& gpu : probes.driver.gpus) {
    if (release->builds_for(gpu.capability)) gpu_archs.push_back(gpu.capability.str());
  }
  std::vector<std::string> fixes;
  if (!gpu_archs.empty()) fixes.push_back("export TORCH_CUDA_ARCH_LIST=" + posix_quote(join(gpu_archs, ";")));
  return finding("deepspeed-archs", Severity::warning,
                 "DeepSpeed's default arch list includes " + join(dropped, ", ") + ", which " + build.label + " cannot build",
                 "With TORCH_CUDA_ARCH_LIST unset, DeepSpeed's ahead-of-time op builds (DS_BUILD_OPS=1) target "
                 "6.0;6.1;7.0 and fail with \"Unsupported gpu architecture\". Name the archs you need.",
                 fixes);
}

}  // namespace cudaenv::doctor_detail
