// Checks about what one tool finds before another: CUDA_HOME against CUDA_PATH, NVIDIA's CUDA
// wheels in the interpreter's site-packages, cuDNN's sub-libraries on LD_LIBRARY_PATH.
#include "doctor/check_versions.h"
#include "util/strings.h"

namespace cudaenv::doctor_detail {

std::optional<Finding> check_cuda_home_path(const Probes& probes) {
  const CudaHomeProbe& home = probes.cuda_home;
  if (!home.cuda_path) return std::nullopt;
  return finding("cuda-home-path", Severity::warning,
                 "CUDA_HOME=" + home.home->string() + cuda_suffix(home.version) + " and CUDA_PATH=" + home.cuda_path->string() +
                     cuda_suffix(home.cuda_path_version) + " name different toolkits",
                 "torch's extension builds and DeepSpeed's ops take CUDA_HOME. CuPy takes CUDA_PATH, and NVIDIA's "
                 "cuda.pathfinder (cuda-python) warns that the two differ and takes one of them (CUDA_PATH in its recent "
                 "releases, CUDA_HOME before), so one program can compile with one toolkit and load the other's "
                 "libraries.",
                 {kAlignEnv, "export CUDA_PATH=\"$CUDA_HOME\""});
}

namespace {

// "nvidia-cuda-nvcc==13.0.*", NVIDIA's nvcc wheel of CUDA 13 on (nvidia/cu13/bin/nvcc); the
// CUDA 12 wheels carry no nvcc.
std::optional<std::string> nvcc_wheel_fix(const Probes& probes, const BuildToolkit& build) {
  const CudaWheelsProbe& wheels = probes.cuda_wheels;
  if (!build.version || build.version->major() < 13 || wheels.nvcc->parent_path().parent_path().filename() != "cu13") {
    return std::nullopt;
  }
  return posix_quote(probes.python.interpreter->string()) + " -m pip install " +
         posix_quote("nvidia-cuda-nvcc==" + mm(*build.version) + ".*");
}

}  // namespace

std::optional<Finding> check_cuda_wheels(const Probes& probes) {
  const CudaWheelsProbe& wheels = probes.cuda_wheels;
  if (!wheels.nvcc || !probes.python.interpreter) return std::nullopt;
  BuildToolkit build = build_toolkit(probes);
  std::string nvcc = wheels.nvcc->string() + cuda_suffix(wheels.nvcc_version);
  std::string why =
      "NVIDIA's cuda.pathfinder (cuda-python's cuda.core and cuda.bindings, and CuPy from its 15 line) takes nvcc from "
      "NVIDIA's wheels in site-packages (nvidia/cu13/bin, then nvidia/cuda_nvcc/bin) before CONDA_PREFIX and "
      "$CUDA_PATH or $CUDA_HOME: here " +
      nvcc + ".";
  if (wheels.library_dir) {
    why += " It loads libcudart, libnvrtc and the other CUDA libraries from " + wheels.library_dir->string() +
           " before LD_LIBRARY_PATH and any toolkit's lib64.";
  }
  why += " " + who_runs_what(probes, probes.nvcc.path ? probes.nvcc.path->string() + cuda_suffix(probes.nvcc.version) : "none");
  std::string whose = "NVIDIA's CUDA wheels for " + probes.python.interpreter->string() + " carry nvcc";
  if (!wheels.nvcc_version || !build.version) return finding("cuda-wheels", Severity::info, whose + ": " + nvcc, why);
  if (mm(*wheels.nvcc_version) == mm(*build.version)) {
    return finding("cuda-wheels", Severity::ok, whose + " " + mm(*build.version) + ", as " + build.label, why);
  }
  std::vector<std::string> fixes = {use_toolkit_fix(*wheels.nvcc_version, probes)};
  if (auto pip = nvcc_wheel_fix(probes, build)) fixes.push_back(*pip);
  return finding("cuda-wheels", Severity::warning, whose + " " + mm(*wheels.nvcc_version) + ", but builds use " + build.label,
                 why + " Tools that find the wheels' nvcc compile with another CUDA than torch's extensions.", fixes);
}

std::optional<Finding> check_cudnn_parts(const Probes& probes) {
  const std::optional<Version>& torch = probes.python.cudnn;
  if (!torch || torch->major() != 9) return std::nullopt;  // cuDNN 9's split into sub-libraries
  auto first = std::find_if(probes.library_path.begin(), probes.library_path.end(),
                            [](const LibraryPathEntry& entry) { return entry.has_cudnn_parts; });
  if (first == probes.library_path.end() || !first->cudnn) return std::nullopt;
  std::string pair = "cuDNN " + first->cudnn->str() + " in " + first->entry + " vs torch's cuDNN " + torch->str();
  if (first->cudnn->str() == torch->str()) {
    return finding("ld-library-path-cudnn", Severity::ok, "LD_LIBRARY_PATH's cuDNN is torch's: " + pair);
  }
  std::vector<std::string> kept;
  for (const LibraryPathEntry& entry : probes.library_path) {
    if (entry.entry != first->entry) kept.push_back(entry.entry);
  }
  std::vector<std::string> fixes;
  const ToolkitProbe& toolkit = probes.toolkit;
  if (toolkit.found && first->toolkit_home == toolkit.home && parse_version(toolkit.name)) {
    fixes.push_back("cudaenv install " + toolkit.name + " --library cudnn@" + mm(*torch));
  }
  fixes.push_back(kept.empty() ? "unset LD_LIBRARY_PATH" : "export LD_LIBRARY_PATH=" + posix_quote(join(kept, ":")));
  return finding("ld-library-path-cudnn", Severity::warning, "LD_LIBRARY_PATH holds other cuDNN 9 sub-libraries: " + pair,
                 "torch preloads its own cuDNN (libcudnn.so.9), cuBLAS and NCCL from its wheels when it is imported, so "
                 "the copies on LD_LIBRARY_PATH do not replace those. cuDNN 9, though, opens its sub-libraries "
                 "(libcudnn_graph.so.9, libcudnn_ops.so.9, libcudnn_cnn.so.9, libcudnn_engines_precompiled.so.9, ...) by "
                 "name when it first needs them, and the loader looks in LD_LIBRARY_PATH first: torch's cuDNN " +
                     torch->str() + " then runs with " + first->entry + "'s, from cuDNN " + first->cudnn->str() + ".",
                 fixes);
}

}  // namespace cudaenv::doctor_detail
