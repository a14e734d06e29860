// Checks between version numbers: the selection, the driver, the toolkit, torch, DeepSpeed.
#include "doctor/check_versions.h"
#include "doctor/driver_fit.h"

#include "util/strings.h"

namespace cudaenv::doctor_detail {

Finding check_selection(const Probes& probes) {
  const ToolkitProbe& toolkit = probes.toolkit;
  if (toolkit.found) {
    std::string what = toolkit.name == "system" ? "the system toolkit " + toolkit.home.string() : "CUDA " + toolkit.name;
    return finding("selection", Severity::ok, what + " is active (" + toolkit.origin + ")");
  }
  std::vector<std::string> fixes;
  auto wanted = parse_version(toolkit.request);
  if (wanted) fixes.push_back("cudaenv install " + toolkit.request);
  std::vector<Version> versions;
  for (const std::string& name : toolkit.installed) {
    if (auto version = parse_version(name)) versions.push_back(*version);
  }
  if (wanted) {
    if (auto nearest = nearest_version(*wanted, versions)) fixes.push_back("cudaenv use " + versions[*nearest].str());
  }
  return finding("selection", Severity::error, toolkit.error,
                 "every cudaenv shim and `cudaenv exec` fails until the requested toolkit is there", fixes);
}

// "no GPU here; checking for target a100 (set by CUDAENV_TARGET)": the checks that follow are
// the target's, and this machine's own driver is no concern of a build here.
static Finding check_target(const DriverProbe& driver) {
  const DriverTarget& target = *driver.target;
  std::string set_by = " (set by " + target.origin + ")";
  std::string what = "driver " + driver.version->text + (driver.cuda ? ", CUDA " + mm(*driver.cuda) : "") + ", " +
                     std::to_string(driver.gpus.size()) + " GPU(s)";
  std::string title = target.matches           ? "this machine is target " + target.name + set_by + ": " + what
                      : target.machine.empty() ? "checking for target " + target.name + set_by + ": " + what
                                               : target.machine + "; checking for target " + target.name + set_by + ": " + what;
  return finding("driver", Severity::info, title,
                 "The checks below take the driver and GPUs saved in " + target.file.string() +
                     " as the machine programs will run on, not this one's. `cudaenv target show " + target.name +
                     "` shows it; unset CUDAENV_TARGET or [target] in cuda.toml to check this machine.");
}

Finding check_driver_present(const Probes& probes) {
  const DriverProbe& driver = probes.driver;
  if (driver.target) return check_target(driver);
  if (driver.overridden()) {
    return finding(
        "driver", Severity::info,
        "CUDAENV_DRIVER_VERSION=" + driver.version->text + " stands in for this machine's driver (" + driver.replaced + ")",
        "The checks below take driver " + driver.version->text + " as the driver programs will run on.");
  }
  if (driver.crashed) {
    return finding("driver", Severity::error, "the NVIDIA driver is broken: " + driver.problem,
                   "Every program that initialises CUDA (torch, nvidia-smi, your own) will crash or hang the same "
                   "way. Reinstall the NVIDIA driver, or take the libcuda.so.1 that LD_LIBRARY_PATH points at off it.");
  }
  if (!driver.loaded || !driver.cuda) {
    return finding("driver", Severity::warning, "no usable NVIDIA driver: " + driver.problem,
                   "Building CUDA code still works, but nothing can run on a GPU here and "
                   "torch.cuda.is_available() is False. On a build-only machine this is expected.");
  }
  std::string title = "NVIDIA driver";
  if (driver.version) title += " " + driver.version->text;
  title += " runs CUDA up to " + mm(*driver.cuda) + ", " + std::to_string(driver.gpus.size()) + " GPU(s)";
  if (!driver.problem.empty()) {
    return finding("driver", Severity::warning, title + ", but " + driver.problem,
                   "the driver library loads but does not initialise, so no CUDA program can run");
  }
  return finding("driver", Severity::ok, title);
}

std::optional<Finding> check_driver_runs(const Probes& probes, const CudaFacts& facts, const std::string& id,
                                         const std::string& what, const std::optional<Version>& needed) {
  const DriverProbe& driver = probes.driver;
  if (!needed || (!driver.cuda && !driver.version)) return std::nullopt;
  DriverShortfall shortfall = driver_shortfall(driver, *needed, facts);
  if (shortfall == DriverShortfall::none)
    return finding(id, Severity::ok, what + " CUDA " + mm(*needed) + " runs on this driver");
  std::string title = what + " CUDA " + mm(*needed) + " needs a newer driver: this one " + driver_reach(driver);
  std::vector<std::string> fixes;
  if (const CudaRelease* fits = newest_runnable(driver, facts)) {
    fixes.push_back(id == "driver-torch" ? torch_fix(fits->version, probes, facts, false)
                                         : use_toolkit_fix(fits->version, probes));
  }
  std::string why = shortfall_consequence(shortfall, *needed, facts) +
                    " Or upgrade the NVIDIA driver to >= " + driver_needed(*needed, facts) + ".";
  return finding(id, shortfall == DriverShortfall::major ? Severity::error : Severity::warning, title, why, fixes);
}

std::optional<Finding> check_toolkit_torch(const Probes& probes, const CudaFacts& facts) {
  BuildToolkit build = build_toolkit(probes);
  const PythonProbe& python = probes.python;
  if (!build.version || !python.torch_cuda) return std::nullopt;
  Version nvcc = major_minor(*build.version), torch = major_minor(*python.torch_cuda);
  std::string pair = build.label + " vs torch " + python.torch_version + " (CUDA " + torch.str() + ")";
  if (nvcc == torch) return finding("toolkit-torch", Severity::ok, pair + ": same CUDA");
  std::vector<std::string> fixes = {use_toolkit_fix(torch, probes), torch_fix(nvcc, probes, facts)};
  if (nvcc.major() != torch.major()) {
    // torch/utils/cpp_extension.py: _check_cuda_version runs only from BuildExtension.
    std::string why =
        "torch's BuildExtension (setup.py and pip builds of CUDA extensions) raises RuntimeError \"The "
        "detected CUDA version (" +
        nvcc.str() +
        ") mismatches the version that was used to compile "
        "PyTorch (" +
        torch.str() +
        ")\"; torch.utils.cpp_extension.load() compares nothing and builds "
        "against the wrong CUDA";
    if (python.deepspeed_version) {
      why += ", and DeepSpeed's op builds raise CUDAMismatchException (\"Installed CUDA version " + nvcc.str() +
             " does not match the version torch was compiled with " + torch.str() + "\")";
    }
    why += ". Use the toolkit torch was built with, or reinstall torch for this toolkit.";
    return finding("toolkit-torch", Severity::error, "CUDA major mismatch: " + pair, why, fixes);
  }
  return finding("toolkit-torch", Severity::warning, "CUDA minor mismatch: " + pair,
                 "torch's BuildExtension only warns about a minor mismatch (\"Most likely this shouldn't be a "
                 "problem\") and extensions usually work, but the safest build uses the same CUDA torch was built with.",
                 fixes);
}

namespace {

// The toolkit a library fix installs into: the selected cudaenv toolkit when it is the one builds
// use, else a cudaenv toolkit of the same CUDA (which `cudaenv use` then selects).
std::vector<std::string> library_fixes(const Probes& probes, const BuildToolkit& build, const std::string& library,
                                       const Version& wanted) {
  const ToolkitProbe& toolkit = probes.toolkit;
  bool selected = toolkit.found && build.home && toolkit.home == *build.home && parse_version(toolkit.name);
  std::string label = selected ? toolkit.name : mm(*build.version);
  std::vector<std::string> fixes = {"cudaenv install " + label + " --library " + library + "@" + mm(wanted)};
  if (!selected) fixes.push_back("cudaenv use " + label);
  return fixes;
}

// A library in the toolkit's include/ against the one torch carries. Extensions (torch's
// cpp_extension, DeepSpeed's ops) compile against the toolkit's headers, but at run time they
// live in torch's process, where torch has already loaded its own wheel's library under the same
// soname (libcudnn.so.9, libnccl.so.2), so they run against torch's copy. cuDNN's rule (NVIDIA's
// cuDNN developer guide, "API Compatibility"): cuDNN x.y runs applications built against x.z for
// z <= y, not for z > y, and nothing across majors. NCCL keeps the soname libnccl.so.2 for all of
// NCCL 2 (nvidia-nccl-cu13 2.28.9 ships lib/libnccl.so.2), so the same holds: a newer header may
// name functions torch's older library lacks (an undefined symbol when the extension is imported).
std::optional<Finding> library_against_torch(const Probes& probes, const std::string& id, const std::string& name,
                                             const std::string& library, const std::optional<Version>& in_toolkit,
                                             const std::optional<Version>& in_torch) {
  BuildToolkit build = build_toolkit(probes);
  if (!in_toolkit || !in_torch || !build.version) return std::nullopt;
  std::string pair = name + " " + in_toolkit->str() + " in " + build.label + " vs torch's " + name + " " + in_torch->str();
  if (in_toolkit->major() != in_torch->major()) {
    return finding(id, Severity::error, name + " major mismatch: " + pair,
                   "An extension built against the toolkit's " + name + " " + std::to_string(in_toolkit->major()) +
                       " headers runs against torch's " + name + " " + std::to_string(in_torch->major()) +
                       ", whose API differs across majors: it fails to load or misbehaves. Install the " + name +
                       " torch carries into the toolkit.",
                   library_fixes(probes, build, library, *in_torch));
  }
  if (major_minor(*in_toolkit) > major_minor(*in_torch)) {
    return finding(id, Severity::warning, "the toolkit's " + name + " is newer than torch's: " + pair,
                   "An extension built against the newer headers may call functions torch's " + name + " " + in_torch->str() +
                       " lacks (an undefined symbol when it is imported); one built against " + name + " " + mm(*in_torch) +
                       " or older is safe.",
                   library_fixes(probes, build, library, *in_torch));
  }
  return finding(id, Severity::ok, pair + ": torch's runs what the toolkit's headers build");
}

}  // namespace

std::vector<Finding> check_toolkit_libraries(const Probes& probes) {
  std::vector<Finding> out;
  const ToolkitLibrariesProbe& toolkit = probes.toolkit_libraries;
  if (auto cudnn = library_against_torch(probes, "toolkit-cudnn", "cuDNN", "cudnn", toolkit.cudnn, probes.python.cudnn)) {
    out.push_back(std::move(*cudnn));
  }
  if (auto nccl = library_against_torch(probes, "toolkit-nccl", "NCCL", "nccl", toolkit.nccl, probes.python.nccl)) {
    out.push_back(std::move(*nccl));
  }
  return out;
}

namespace {

// "DeepSpeed 0.14.3's list is 12.0, 12.1, ..." for the list the probed DeepSpeed ships.
std::string deepspeed_list_text(const CudaFacts& facts, const std::optional<Version>& release, int major) {
  const DeepSpeedList* list = facts.deepspeed_list(release);
  auto minors = list ? list->minor_ok.find(major) : decltype(list->minor_ok.end()){};
  if (!list || minors == list->minor_ok.end()) return "it tolerates no CUDA " + std::to_string(major) + " minor mismatch";
  std::vector<std::string> names;
  for (const Version& minor : minors->second) names.push_back(minor.str());
  return "its tolerated CUDA " + std::to_string(major) + " minors are " + join(names, ", ");
}

bool reads_skip_check(const CudaFacts& facts, const std::optional<Version>& release) {
  return !release || !facts.deepspeed_skip_from || *release >= *facts.deepspeed_skip_from;
}

}  // namespace

std::optional<Finding> check_deepspeed(const Probes& probes, const CudaFacts& facts) {
  BuildToolkit build = build_toolkit(probes);
  const PythonProbe& python = probes.python;
  if (!python.deepspeed_version || !build.version || !python.torch_cuda) return std::nullopt;
  auto release = release_version(*python.deepspeed_version);
  std::string name = "DeepSpeed " + *python.deepspeed_version;
  Version nvcc = major_minor(*build.version), torch = major_minor(*python.torch_cuda);
  std::string pair = "nvcc " + nvcc.str() + " with torch's CUDA " + torch.str();
  bool skipped = probes.deepspeed_skip_check && reads_skip_check(facts, release);
  if (nvcc.major() != torch.major()) {
    if (!skipped) return std::nullopt;  // the major mismatch finding covers it
    return finding("deepspeed-cuda", Severity::warning, name + " lets " + pair + " through (DS_SKIP_CUDA_CHECK=1)",
                   "DS_SKIP_CUDA_CHECK=1 silences DeepSpeed's check even across CUDA majors, so its op builds go "
                   "ahead with a toolkit torch was not built with and fail later, when they compile or load.",
                   {use_toolkit_fix(torch, probes), "unset DS_SKIP_CUDA_CHECK"});
  }
  if (facts.deepspeed_tolerates(nvcc, torch, release)) return finding("deepspeed-cuda", Severity::ok, name + " accepts " + pair);
  std::string why =
      "DeepSpeed's op builder raises CUDAMismatchException unless the versions are equal or both are in "
      "its list of tolerated minors; " +
      deepspeed_list_text(facts, release, nvcc.major()) + ".";
  if (!release) why += " (Its version does not read, so the newest DeepSpeed's list is assumed.)";
  std::vector<std::string> fixes = {use_toolkit_fix(torch, probes), torch_fix(nvcc, probes, facts)};
  if (auto first = facts.deepspeed_first_tolerating(nvcc, torch); first && release && *first > *release) {
    why += " DeepSpeed " + first->str() + " and later tolerate this pair.";
    if (python.interpreter) {
      fixes.push_back(posix_quote(python.interpreter->string()) + " -m pip install " + posix_quote("deepspeed>=" + first->str()));
    }
  }
  std::string title = name + " refuses " + pair;
  if (skipped) {
    return finding("deepspeed-cuda", Severity::warning, title + " (DS_SKIP_CUDA_CHECK=1 lets it through)",
                   why + " DS_SKIP_CUDA_CHECK=1 is set, so it only warns.", fixes);
  }
  if (probes.deepspeed_skip_check) {
    why += " DS_SKIP_CUDA_CHECK=1 is set, but " + name + " predates it (it is read from DeepSpeed " +
           facts.deepspeed_skip_from->str() + " on).";
  } else if (reads_skip_check(facts, release)) {
    fixes.push_back("export DS_SKIP_CUDA_CHECK=1");
  }
  return finding("deepspeed-cuda", Severity::error, title, why, fixes);
}

std::optional<Finding> check_facts(const Probes& probes, const CudaFacts& facts) {
  BuildToolkit build = build_toolkit(probes);
  if (!build.version || facts.release(*build.version)) return std::nullopt;
  std::string cuda = mm(*build.version);
  // A toolkit's own crt/host_config.h bounds its host compiler without the facts.
  std::string skipped = probes.compiler.limits ? "GPU architectures, the arch list"
                                               : "GPU architectures, the arch list, the host compiler's bounds";
  return finding("facts", Severity::info, "no facts for CUDA " + cuda + ": these checks were skipped: " + skipped,
                 "cudaenv's cuda-facts.toml knows CUDA " + facts.releases.front().version.str() + " to " +
                     facts.releases.back().version.str() + "; a newer cudaenv may know " + cuda + ".");
}

std::optional<Finding> check_deepspeed_skip(const Probes& probes, const CudaFacts& facts) {
  if (!probes.deepspeed_skip_check) return std::nullopt;
  const std::optional<std::string>& installed = probes.python.deepspeed_version;
  auto release = installed ? release_version(*installed) : std::nullopt;
  if (installed && !reads_skip_check(facts, release)) {
    return finding("deepspeed-skip", Severity::info, "DS_SKIP_CUDA_CHECK=1 is set, and DeepSpeed " + *installed + " ignores it",
                   "DeepSpeed reads it from " + facts.deepspeed_skip_from->str() + " on.");
  }
  return finding("deepspeed-skip", Severity::info, "DS_SKIP_CUDA_CHECK=1 is set",
                 "DeepSpeed's op builds will not stop at a CUDA mismatch between nvcc and torch, not even across "
                 "majors; a mismatched build fails later, when it compiles or loads.");
}

std::optional<Finding> check_torch_build(const Probes& probes, const CudaFacts& facts) {
  const PythonProbe& python = probes.python;
  if (!python.has_torch || python.torch_cuda || probes.driver.gpus.empty()) return std::nullopt;
  BuildToolkit build = build_toolkit(probes);
  std::optional<Version> cuda = build.version ? build.version : probes.driver.cuda;
  std::vector<std::string> fixes;
  if (cuda) fixes.push_back(torch_fix(*cuda, probes, facts));
  return finding("torch-cpu", Severity::warning, "torch " + python.torch_version + " is a CPU-only build",
                 "This machine has a GPU, but this torch cannot use it (torch.version.cuda is None).", fixes);
}

}  // namespace cudaenv::doctor_detail
