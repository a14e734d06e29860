// Checks about what the environment points at: nvcc on PATH, CUDA_HOME, LD_LIBRARY_PATH,
// the host compiler and the Python interpreter.
#include <algorithm>

#include "doctor/check_versions.h"
#include "util/strings.h"

namespace cudaenv::doctor_detail {

namespace {

std::vector<std::string> compiler_fixes(const CompilerProbe& compiler, int max_major, const Probes& probes,
                                        const CudaFacts& facts, const Version& cuda) {
  std::vector<std::string> fixes = {host_compiler_fix(best_gcc(max_major, compiler.other_gcc_majors), compiler.other_gcc_majors)};
  if (compiler.kind == "gcc" && compiler.version) {
    for (const CudaRelease& newer : facts.releases) {
      if (newer.version > major_minor(cuda) && newer.gcc_max && *newer.gcc_max >= compiler.version->major()) {
        fixes.push_back(use_toolkit_fix(newer.version, probes));
        break;
      }
    }
  }
  return fixes;
}

// What the probed torch's BuildExtension does with a gcc for the build's CUDA.
struct TorchCompilerRule {
  std::string torch;           // "torch 2.11.0+cu128"; empty without torch
  std::optional<int> gcc_max;  // its bound; none: it has none and only warns
};

TorchCompilerRule torch_compiler_rule(const Probes& probes, const CudaFacts& facts, const Version& cuda) {
  const PythonProbe& python = probes.python;
  if (!python.torch_cuda || probes.compiler.kind != "gcc") return {};
  auto release = release_version(python.torch_version);
  if (!release) return {};
  return {"torch " + python.torch_version, facts.torch_gcc_max(*release, cuda)};
}

// The clause the nvcc explanation adds about torch: refuses too, or only warns.
std::string torch_says(const TorchCompilerRule& torch, int gcc_major, const std::string& cuda) {
  if (torch.torch.empty()) return "";
  if (!torch.gcc_max) {
    return "; " + torch.torch + "'s BuildExtension has no gcc bounds for CUDA " + cuda +
           " and only warns (\"There are no g++ version bounds defined\")";
  }
  if (gcc_major > *torch.gcc_max) return ", and " + torch.torch + "'s BuildExtension refuses it too (RuntimeError)";
  return "";
}

// nvcc takes the compiler but the probed torch's extension builds do not.
Finding torch_refuses_compiler(const Probes& probes, const BuildToolkit& build, const std::string& label,
                               const TorchCompilerRule& torch) {
  std::string cuda = mm(*build.version);
  std::vector<std::string> fixes;
  const std::vector<int>& installed = probes.compiler.other_gcc_majors;
  int best = best_gcc(*torch.gcc_max, installed);
  if (std::find(installed.begin(), installed.end(), best) != installed.end()) fixes.push_back(host_compiler_fix(best, installed));
  fixes.push_back("export TORCH_DONT_CHECK_COMPILER_ABI=1");
  return finding("host-compiler", Severity::warning,
                 torch.torch + " refuses " + label + " with CUDA " + cuda + ", though nvcc accepts it",
                 torch.torch + "'s BuildExtension (setup.py and pip builds of CUDA extensions) allows gcc up to " +
                     std::to_string(*torch.gcc_max) + " with CUDA " + cuda +
                     " and raises RuntimeError \"The current "
                     "installed version of g++ ... is greater than the maximum required version by CUDA " +
                     cuda +
                     "\"; torch.utils.cpp_extension.load() does not check. TORCH_DONT_CHECK_COMPILER_ABI=1 skips the "
                     "check.",
                 fixes);
}

}  // namespace

namespace {

// The build toolkit's own crt/host_config.h, else the facts of its CUDA.
HostCompilerLimits compiler_limits(const Probes& probes, const CudaFacts& facts) {
  BuildToolkit build = build_toolkit(probes);
  if (probes.compiler.limits) return *probes.compiler.limits;
  return build.version ? facts_limits(facts, *build.version) : HostCompilerLimits{};
}

}  // namespace

std::optional<Finding> check_compiler(const Probes& probes, const CudaFacts& facts) {
  const CompilerProbe& compiler = probes.compiler;
  BuildToolkit build = build_toolkit(probes);
  HostCompilerLimits limits = compiler_limits(probes, facts);
  std::string named = compiler.variable.empty() ? compiler.command : compiler.variable + "=" + compiler.command;
  if (!compiler.path) {
    std::vector<std::string> fixes;
    if (limits.gcc_max)
      fixes.push_back(host_compiler_fix(best_gcc(*limits.gcc_max, compiler.other_gcc_majors), compiler.other_gcc_majors));
    return finding("host-compiler", Severity::warning, "no host compiler: " + named + " is not on PATH",
                   "nvcc compiles the host side of every .cu file with it.", fixes);
  }
  std::string label = compiler.kind + " " + (compiler.version ? compiler.version->str() : "(unknown version)") + " (" + named +
                      " -> " + compiler.path->string() + ")";
  std::optional<int> max = limits.max_for(compiler.kind);
  if (!compiler.version)
    return finding("host-compiler", Severity::info, "host compiler " + label + ": its version does not read");
  if (!max || !build.version) {
    std::string cuda = build.version ? "CUDA " + mm(*build.version) : "no toolkit";
    return finding("host-compiler", Severity::info,
                   "host compiler " + label + ": no " + compiler.kind + " bound known for " + cuda + ", not checked");
  }
  std::string cuda = mm(*build.version);
  TorchCompilerRule torch = torch_compiler_rule(probes, facts, *build.version);
  int major = compiler.version->major();
  if (major <= *max) {
    if (torch.gcc_max && major > *torch.gcc_max) return torch_refuses_compiler(probes, build, label, torch);
    return finding("host-compiler", Severity::ok, build.label + " accepts " + label);
  }
  std::string why = "nvcc " + cuda +
                    " stops with \"#error -- unsupported GNU version! gcc versions "
                    "later than " +
                    std::to_string(*max) + " are not supported!\" (" + limits.source + ")" + torch_says(torch, major, cuda) +
                    ". Point nvcc at an older compiler, or use a newer CUDA.";
  if (compiler.kind == "clang")
    why = "nvcc " + cuda + " rejects clang newer than " + std::to_string(*max) + " (" + limits.source + ").";
  return finding("host-compiler", Severity::error, build.label + " does not accept " + label, why,
                 compiler_fixes(compiler, *max, probes, facts, *build.version));
}

namespace {

// The nvcc PATH gives is not the selected toolkit's: a folder ahead of cudaenv's shims (a shell
// without the hook, an IDE, a module file) holds another one.
std::optional<Finding> nvcc_shadow(const Probes& probes) {
  const NvccProbe& nvcc = probes.nvcc;
  const ToolkitProbe& toolkit = probes.toolkit;
  if (!toolkit.found || toolkit.name == "system" || !nvcc.resolved || nvcc.via_shim) return std::nullopt;
  fs::path selected = toolkit.home / "bin" / "nvcc";
  if (*nvcc.resolved == selected) return std::nullopt;
  std::string where = nvcc.path->parent_path().string();
  std::string how = nvcc.shims_on_path ? where + " comes before cudaenv's shims on PATH"
                                       : "cudaenv's shims are not on PATH (a shell without `cudaenv init`, an IDE)";
  std::vector<std::string> fixes = {kAlignEnv};
  if (nvcc.path_without) fixes.push_back("export PATH=" + posix_quote(*nvcc.path_without));
  return finding("nvcc-path", Severity::error,
                 "nvcc on PATH is " + nvcc.path->string() + cuda_suffix(nvcc.version) + ", not the selected CUDA " +
                     toolkit.name + "'s: " + how,
                 who_runs_what(probes, nvcc.path->string() + cuda_suffix(nvcc.version)) + " The selected toolkit (" +
                     toolkit.origin + ") is " + selected.string() + ". `cudaenv exec -- COMMAND` runs one command with it.",
                 fixes);
}

}  // namespace

std::optional<Finding> check_nvcc_path(const Probes& probes) {
  if (auto shadow = nvcc_shadow(probes)) return shadow;
  const NvccProbe& nvcc = probes.nvcc;
  const CudaHomeProbe& home = probes.cuda_home;
  std::string shown = nvcc.path ? nvcc.path->string() : "";
  if (nvcc.via_shim && nvcc.resolved) shown += " -> " + nvcc.resolved->string();
  if (home.home && !home.has_nvcc) {
    std::vector<std::string> fixes = {kAlignEnv, "unset " + home.variable};
    return finding("nvcc-path", Severity::error, home.variable + "=" + home.home->string() + " has no bin/nvcc",
                   "torch.utils.cpp_extension and DeepSpeed run $" + home.variable + "/bin/nvcc and fail without it.", fixes);
  }
  if (!home.home) {
    if (!nvcc.path) {
      return finding("nvcc-path", Severity::warning, "no nvcc on PATH and neither CUDA_HOME nor CUDA_PATH is set",
                     "torch then falls back to /usr/local/cuda, which may be another CUDA or none.", {kAlignEnv});
    }
    return finding("nvcc-path", Severity::ok, "nvcc on PATH: " + shown + " (CUDA_HOME unset, so torch uses it too)");
  }
  fs::path expected = *home.home / "bin" / "nvcc";
  if (!nvcc.resolved || *nvcc.resolved == expected) {
    return finding(
        "nvcc-path", Severity::ok,
        home.variable + "=" + home.home->string() + (nvcc.resolved ? " and nvcc on PATH agree" : " (no nvcc on PATH)"));
  }
  std::string versions = (nvcc.version ? " (" + mm(*nvcc.version) + ")" : "") + std::string(" vs ") + expected.string() +
                         (home.version ? " (" + mm(*home.version) + ")" : "");
  return finding("nvcc-path", Severity::warning, "`which nvcc` is not $" + home.variable + "/bin/nvcc: " + shown + versions,
                 "torch and DeepSpeed build with $" + home.variable +
                     "/bin/nvcc, while make, CMake and your shell "
                     "run the nvcc on PATH: the same project gets built by two different toolkits.",
                 {kAlignEnv, "export PATH=" + posix_quote(home.home->string() + "/bin") + ":\"$PATH\""});
}

std::optional<Finding> check_cuda_home(const Probes& probes) {
  const CudaHomeProbe& home = probes.cuda_home;
  const ToolkitProbe& toolkit = probes.toolkit;
  if (!home.home || !toolkit.found || toolkit.name == "system" || *home.home == toolkit.home) return std::nullopt;
  std::string active = "CUDA " + toolkit.name + " (" + toolkit.origin + ")";
  return finding("cuda-home", Severity::warning, home.variable + "=" + home.home->string() + " is not the active " + active,
                 "cudaenv's shims run " + toolkit.home.string() + ", but torch and DeepSpeed follow $" + home.variable +
                     ". The variable was set by hand or by a shell that did not reload cudaenv's environment.",
                 {kAlignEnv, "unset CUDA_HOME CUDA_PATH"});
}

std::optional<Finding> check_library_path(const Probes& probes) {
  BuildToolkit build = build_toolkit(probes);
  std::optional<fs::path> own = build.home ? build.home : std::optional<fs::path>(probes.toolkit.home);
  std::vector<std::string> kept, stray;
  for (const LibraryPathEntry& entry : probes.library_path) {
    bool foreign = entry.toolkit_home && (!own || *entry.toolkit_home != *own);
    if (foreign) {
      stray.push_back(entry.entry + (entry.toolkit_version ? " (CUDA " + mm(*entry.toolkit_version) + ")" : ""));
    } else {
      kept.push_back(entry.entry);
    }
  }
  if (stray.empty()) return finding("ld-library-path", Severity::ok, "LD_LIBRARY_PATH holds no other toolkit");
  std::string fix = kept.empty() ? "unset LD_LIBRARY_PATH" : "export LD_LIBRARY_PATH=" + posix_quote(join(kept, ":"));
  return finding("ld-library-path", Severity::warning, "LD_LIBRARY_PATH holds another toolkit: " + join(stray, ", "),
                 "Programs built with " + build.label +
                     " may load that toolkit's libcudart, libcublas or libnvrtc "
                     "instead, which fails with undefined symbols or version errors at run time.",
                 {fix});
}

std::optional<Finding> check_python(const Probes& probes) {
  const PythonProbe& python = probes.python;
  if (!python.interpreter) return finding("python", Severity::info, "no Python found: the torch checks were skipped");
  std::string where = python.interpreter->string();
  if (python.timed_out) {
    // A cold disk cache or a slow network file system, not a broken interpreter: give it longer.
    auto doubled = std::chrono::duration_cast<std::chrono::seconds>(python.limit * 2 + std::chrono::milliseconds(999));
    return finding("python", Severity::warning, "could not ask " + where + " about torch: " + python.problem,
                   "The torch and DeepSpeed checks were skipped.",
                   {"cudaenv doctor --timeout " + std::to_string(doubled.count())});
  }
  if (!python.problem.empty()) {
    return finding("python", Severity::warning, "could not ask " + where + " about torch: " + python.problem,
                   "The torch and DeepSpeed checks were skipped.");
  }
  if (!python.has_torch) return finding("python", Severity::info, "torch is not installed for " + where);
  std::string title = "torch " + python.torch_version + " (" +
                      (python.torch_cuda ? "CUDA " + python.torch_cuda->str() : std::string("CPU build")) + ") in " + where;
  if (python.deepspeed_version) title += ", DeepSpeed " + *python.deepspeed_version;
  return finding("python", Severity::ok, title);
}

}  // namespace cudaenv::doctor_detail
