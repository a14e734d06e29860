// Checks between version numbers: the selection, the driver, the toolkit, torch, DeepSpeed.
#include "doctor/check_versions.h"

#include "doctor/check_helpers.h"

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

Finding check_driver_present(const Probes& probes) {
  const DriverProbe& driver = probes.driver;
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

namespace {

// Whether the driver runs CUDA `needed`: error across majors (no initialisation at all),
// warning within a major (minor-version compatibility: PTX JIT and newer features fail).
std::optional<Severity> driver_shortfall(const DriverProbe& driver, const Version& needed, const CudaFacts& facts) {
  if (driver.cuda) {
    if (needed.major() > driver.cuda->major()) return Severity::error;
    if (major_minor(needed) > major_minor(*driver.cuda)) return Severity::warning;
    return std::nullopt;
  }
  if (!driver.version) return std::nullopt;
  auto floor = facts.family_driver.find(needed.major());
  if (floor != facts.family_driver.end() && driver.version->number < floor->second.number) return Severity::error;
  const CudaRelease* release = facts.release(needed);
  if (release && release->driver && driver.version->number < release->driver->number) return Severity::warning;
  return std::nullopt;
}

std::string driver_needed(const Version& needed, const CudaFacts& facts) {
  const CudaRelease* release = facts.release(needed);
  if (release && release->driver) return release->driver->text;
  auto floor = facts.family_driver.find(needed.major());
  return floor == facts.family_driver.end() ? "a newer one" : floor->second.text;
}

}  // namespace

std::optional<Finding> check_driver_runs(const Probes& probes, const CudaFacts& facts, const std::string& id,
                                         const std::string& what, const std::optional<Version>& needed) {
  const DriverProbe& driver = probes.driver;
  if (!needed || (!driver.cuda && !driver.version)) return std::nullopt;
  std::string have = driver.cuda ? "runs CUDA up to " + mm(*driver.cuda) : "is " + driver.version->text;
  auto shortfall = driver_shortfall(driver, *needed, facts);
  if (!shortfall) return finding(id, Severity::ok, what + " CUDA " + mm(*needed) + " runs on this driver");
  std::string title = what + " CUDA " + mm(*needed) + " needs a newer driver: this one " + have;
  std::string why = *shortfall == Severity::error
                        ? "A CUDA " + std::to_string(needed->major()) + " program cannot even initialise on it "
                          "(\"CUDA driver version is insufficient for CUDA runtime version\")."
                        : "It runs through minor-version compatibility, but PTX newer than the driver cannot be JIT-"
                          "compiled (cudaErrorUnsupportedPtxVersion) and newer features fail.";
  why += " CUDA " + mm(*needed) + " wants driver >= " + driver_needed(*needed, facts) + ".";
  std::vector<std::string> fixes;
  if (driver.cuda) {
    if (const CudaRelease* fits = facts.newest_within(*driver.cuda)) {
      fixes.push_back(id == "driver-torch" ? torch_fix(fits->version, probes, facts, false)
                                           : use_toolkit_fix(fits->version, probes));
    }
  }
  why += " Or upgrade the NVIDIA driver to >= " + driver_needed(*needed, facts) + ".";
  return finding(id, *shortfall, title, why, fixes);
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
    std::string why = "Installed CUDA version " + nvcc.str() + " does not match the version torch was compiled with " +
                      torch.str() + ": torch.utils.cpp_extension refuses to build CUDA extensions across majors";
    if (python.deepspeed_version) why += ", and so does DeepSpeed (CUDAMismatchException)";
    why += ". Use the toolkit torch was built with, or reinstall torch for this toolkit.";
    return finding("toolkit-torch", Severity::error, "CUDA major mismatch: " + pair, why, fixes);
  }
  return finding("toolkit-torch", Severity::warning, "CUDA minor mismatch: " + pair,
                 "torch only warns about a minor mismatch and extensions usually work, but the safest build uses "
                 "the same CUDA torch was built with.",
                 fixes);
}

std::optional<Finding> check_deepspeed(const Probes& probes, const CudaFacts& facts) {
  BuildToolkit build = build_toolkit(probes);
  const PythonProbe& python = probes.python;
  if (!python.deepspeed_version || !build.version || !python.torch_cuda) return std::nullopt;
  Version nvcc = major_minor(*build.version), torch = major_minor(*python.torch_cuda);
  if (nvcc.major() != torch.major()) return std::nullopt;  // the major mismatch finding covers it
  std::string pair = "nvcc " + nvcc.str() + " with torch's CUDA " + torch.str();
  if (facts.deepspeed_tolerates(nvcc, torch)) {
    return finding("deepspeed-cuda", Severity::ok, "DeepSpeed " + *python.deepspeed_version + " accepts " + pair);
  }
  std::string title = "DeepSpeed " + *python.deepspeed_version + " refuses " + pair;
  std::string why = "DeepSpeed's op builder raises CUDAMismatchException unless the versions are equal or both are "
                    "in its list of tolerated CUDA " + std::to_string(nvcc.major()) + " minors.";
  std::vector<std::string> fixes = {use_toolkit_fix(torch, probes), torch_fix(nvcc, probes, facts)};
  if (probes.deepspeed_skip_check) {
    return finding("deepspeed-cuda", Severity::warning, title + " (DS_SKIP_CUDA_CHECK=1 lets it through)",
                   why + " DS_SKIP_CUDA_CHECK=1 is set, so it only warns.", fixes);
  }
  fixes.push_back("export DS_SKIP_CUDA_CHECK=1");
  return finding("deepspeed-cuda", Severity::error, title, why, fixes);
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
