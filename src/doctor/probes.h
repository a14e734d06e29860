#pragma once
// What doctor finds on the machine and the probes that find it. The findings are plain data: the
// probes fill them in (I/O: the driver library, files, programs, Python), the checks read them
// (pure), and --json prints all of it. Each probe may find nothing; that is recorded, never an error.

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/layout.h"
#include "core/selection.h"
#include "core/version.h"
#include "doctor/host_compiler.h"
#include "extensions/advice.h"
#include "extensions/extension.h"
#include "util/environment.h"
#include "util/file_system.h"

namespace cudaenv {

namespace fs = std::filesystem;

struct Gpu {
  std::string name;
  ComputeCapability capability;  // 8.9
};

// Where a target is selected (core/target.h), DriverProbe holds the target's driver and GPUs, so
// every check checks against them; this says which target, and what this machine has.
struct DriverTarget {
  std::string name;      // "a100"
  std::string origin;    // "CUDAENV_TARGET", "/p/cuda.toml"
  fs::path file;         // the target's file
  std::string machine;   // "no GPU here", "driver 550.54.14, 1 GPU (NVIDIA GeForce RTX 4090, 8.9)"; "" where not probed
  bool matches = false;  // this machine has the target's driver and GPUs
};

struct DriverProbe {
  bool loaded = false;                   // libcuda.so.1 could be opened
  bool crashed = false;                  // the driver library crashed or hung the probe
  std::string problem;                   // why it could not, or why cuInit failed
  std::optional<Version> cuda;           // cuDriverGetVersion: the newest CUDA the driver runs
  std::optional<DriverVersion> version;  // the driver's own version
  std::string version_source;            // NVML, /sys/module/nvidia/version, /proc/driver/nvidia/version, CUDAENV_DRIVER_VERSION
  std::string replaced;                  // what CUDAENV_DRIVER_VERSION stands in for: "550.54.14, CUDA 12.4", "none: ..."
  std::string library;                   // the libcuda.so.1 the loader picked, as it names it
  std::vector<Gpu> gpus;
  std::optional<DriverTarget> target{};

  bool overridden() const { return !replaced.empty(); }
};

struct ToolkitProbe {  // the toolkit cudaenv selects here
  bool found = false;
  std::string request;  // "11.8", "system"
  std::string origin;   // "set by /p/cuda.toml"
  std::string name;
  std::optional<Version> version;
  fs::path home;
  std::string error;                   // why the request could not be resolved
  std::vector<std::string> installed;  // names of the installed and registered toolkits
};

struct NvccProbe {  // the first nvcc on PATH
  std::optional<fs::path> path;
  std::optional<fs::path> resolved;  // the real nvcc behind a cudaenv shim; else = path
  bool via_shim = false;
  std::optional<Version> version;
  bool shims_on_path = false;               // cudaenv's shims folder is on PATH at all
  std::optional<std::string> cudacxx;       // CUDACXX: the nvcc CMake runs
  std::optional<std::string> path_without;  // PATH without the toolkit bin of an nvcc that is no shim
};

struct CudaHomeProbe {
  std::string variable;  // CUDA_HOME or CUDA_PATH, whichever torch reads first
  std::optional<fs::path> home;
  bool has_nvcc = false;
  std::optional<Version> version;
  // CUDA_PATH, when CUDA_HOME is set too: torch reads CUDA_HOME, CuPy and cuda.pathfinder CUDA_PATH.
  std::optional<fs::path> cuda_path{};
  std::optional<Version> cuda_path_version{};
};

struct ToolkitLibrariesProbe {   // cuDNN and NCCL in the toolkit builds use, as its headers say
  std::optional<Version> cudnn;  // include/cudnn_version.h
  std::optional<Version> nccl;   // include/nccl.h
};

struct LibraryPathEntry {  // one LD_LIBRARY_PATH entry
  std::string entry;
  std::optional<fs::path> toolkit_home;  // set when the entry is a toolkit's library folder
  std::optional<Version> toolkit_version;
  bool has_cudnn_parts = false;    // cuDNN 9's sub-libraries (libcudnn_cnn.so.9, ...), which cuDNN opens by name
  std::optional<Version> cudnn{};  // their release, from their file names or the toolkit's cudnn_version.h
};

struct PythonPackage {  // a distribution as importlib.metadata names it
  std::string name;     // nvidia-cudnn-cu13
  std::string version;  // 9.26.0.51
};

struct PythonProbe {
  std::optional<fs::path> interpreter;
  std::string problem;  // the interpreter is missing, timed out or printed no answer
  bool timed_out = false;
  std::chrono::milliseconds took{0};   // until it answered or was stopped: importing torch takes seconds
  std::chrono::milliseconds limit{0};  // doctor --timeout
  bool has_torch = false;
  std::string torch_version;          // 2.1.2+cu121
  std::optional<Version> torch_cuda;  // torch.version.cuda; none for a CPU build
  bool cuda_available = false;
  std::vector<std::string> arch_list;  // sm_80, compute_90, ...
  // What torch carries with it: the libraries it loads, not the toolkit's.
  std::optional<Version> cudnn;              // torch.backends.cudnn.version(), 92600 -> 9.26.0
  std::optional<Version> nccl;               // torch.cuda.nccl.version()
  std::optional<Version> cuda_runtime;       // the nvidia-cuda-runtime wheel beside torch
  std::vector<PythonPackage> nvidia_wheels;  // the nvidia-* distributions beside torch
  std::optional<std::string> deepspeed_version;
  std::vector<fs::path> nvidia_dirs;  // the folders of the `nvidia` namespace package: NVIDIA's wheels
  // What the extension scan needs: where import looks, and torch's package and C++ ABI.
  std::vector<fs::path> sys_path;
  std::optional<fs::path> stdlib;       // sysconfig's "stdlib": CPython's own modules, not scanned
  std::optional<fs::path> torch_dir;    // os.path.dirname(torch.__file__)
  std::optional<bool> torch_cxx11_abi;  // torch._C._GLIBCXX_USE_CXX11_ABI
  std::string python_tag;               // cp312
  std::string platform;                 // linux_x86_64
};

// NVIDIA's CUDA wheels in the probed interpreter's site-packages, as cuda.pathfinder (cuda-python,
// and CuPy from its 15 line) searches them before CONDA_PREFIX, LD_LIBRARY_PATH and $CUDA_PATH.
struct CudaWheelsProbe {
  std::optional<fs::path> nvcc;  // nvidia/cu13/bin/nvcc, else nvidia/cuda_nvcc/bin/nvcc
  std::optional<Version> nvcc_version;
  std::optional<fs::path> library_dir;  // where libcudart is: nvidia/cu13/lib, else nvidia/cuda_runtime/lib
};

// WSL2, where the GPU belongs to the Windows driver: WSL maps its libraries (libcuda.so.1,
// nvidia-smi) into /usr/lib/wsl/lib, and there is no /proc/driver/nvidia or /sys/module/nvidia.
struct WslProbe {
  bool wsl = false;
  std::string kernel;   // /proc/sys/kernel/osrelease: "5.15.153.1-microsoft-standard-WSL2"
  fs::path driver_dir;  // /usr/lib/wsl/lib
  bool has_libcuda = false;
  std::optional<fs::path> nvidia_smi;  // the one PATH gives
};

struct CompilerProbe {   // the host compiler nvcc would use
  std::string command;   // as named by NVCC_CCBIN / CC / cuda.toml, or "gcc"
  std::string variable;  // NVCC_CCBIN, CC, "[cuda] host_compiler" or empty for the default
  std::optional<fs::path> path;
  std::string kind;  // gcc, clang or unknown
  std::optional<Version> version;
  std::vector<int> other_gcc_majors;  // gcc-N found on PATH
  // What the build toolkit's crt/host_config.h accepts; without one, the facts say.
  std::optional<HostCompilerLimits> limits;
};

// The CUDA libraries the selected toolkit lacks that a program would load from elsewhere: the
// loader (LD_LIBRARY_PATH, ld.so.cache, the system folders), as cuda.pathfinder searches after
// NVIDIA's wheels and CONDA_PREFIX.
struct ForeignLibrary {
  std::string soname;                    // libnvrtc.so.13
  std::string component;                 // cuda_nvrtc: the redist component that carries it
  fs::path found;                        // /usr/local/cuda-13.0/lib/libnvrtc.so.13
  std::optional<fs::path> toolkit_home;  // the toolkit `found` belongs to, when it is one
  std::optional<Version> toolkit_version;
};

struct ToolkitLibrariesFound {
  bool ran = false;  // a selected toolkit whose libraries could be listed
  std::vector<ForeignLibrary> foreign;
};

struct ArchListProbe {
  std::string source;  // TORCH_CUDA_ARCH_LIST or the cuda.toml path
  std::vector<std::string> entries;
};

// What doctor's fixes for broken extensions need besides the scan, filled in by cmd_doctor once
// the probes ran: the mirror and cores first, then what the servers said of the wheels the
// fixes would name (extension_wheels_wanted).
struct ExtensionFixInputs {
  std::string mirror;  // CUDAENV_EXTENSION_WHEELS
  unsigned cores = 1;
  WheelAnswers wheels;
};

struct Probes {
  DriverProbe driver;
  ToolkitProbe toolkit;
  NvccProbe nvcc;
  CudaHomeProbe cuda_home;
  ToolkitLibrariesProbe toolkit_libraries;
  std::vector<LibraryPathEntry> library_path;
  PythonProbe python;
  CudaWheelsProbe cuda_wheels;
  WslProbe wsl;
  CompilerProbe compiler;
  ArchListProbe arch_list;
  bool deepspeed_skip_check = false;  // DS_SKIP_CUDA_CHECK=1
  ExtensionScan extensions;
  ExtensionFixInputs extension_fixes;
  ToolkitLibrariesFound toolkit_libraries_found;
};

// The probes: run_probes runs them all; the driver's have a file of their own (probe_driver.cpp),
// since a driver that crashes or hangs must be probed in a child process.
struct ProbeContext {
  const FileSystemView& fs;
  const EnvMap& env;
  fs::path cwd;
  Layout layout;
  const SelectionOutcome& selection;  // a failed one still says what was asked
  std::optional<fs::path> python;     // --python
  std::chrono::milliseconds timeout;  // for each of the driver and Python probes
  fs::path machine_root = "/";        // where /proc, /sys and /usr/lib/wsl are: a test's stand-in machine
  // What stands in for this machine's driver and GPUs (a selected target, CUDAENV_DRIVER_VERSION):
  // applied before anything reads them, the extension scan's kernel check included.
  std::function<void(DriverProbe&)> stand_in_driver{};
};

Probes run_probes(const ProbeContext& context);

// The toolkit a library folder belongs to: HOME/lib, HOME/lib64 or HOME/targets/<triple>/lib of a
// folder with bin/nvcc or version.json.
std::optional<fs::path> toolkit_of_library_dir(const FileSystemView& fs, const fs::path& dir);

// probe_extensions.cpp: the compiled extensions the probed interpreter can import, checked for
// the GPUs here (else the project's arch); and the CUDA libraries the selected toolkit lacks that
// the loader would take from another toolkit of its major.
ExtensionScan probe_extensions(const ProbeContext& context, const Probes& probes);
ToolkitLibrariesFound probe_toolkit_libraries_found(const ProbeContext& context, const ToolkitProbe& toolkit);

// Called with the name of each driver call before it is made, so a crash can be placed.
using ProbeStage = std::function<void(const char*)>;

// dlopen("libcuda.so.1") and the driver API; the driver version from NVML, else /sys or /proc
// under `root`. In this process: only the child `cudaenv doctor --driver-probe` calls it.
DriverProbe probe_driver_here(const FileSystemView& fs, const fs::path& root, const ProbeStage& stage);
// The child's side: probe_driver_here, its stages and its answer on stdout.
void print_driver_probe(const FileSystemView& fs, const fs::path& root);
// The driver probed in that child, given at most `timeout`; a child that crashes, hangs or
// answers nonsense is a DriverProbe whose problem says so.
DriverProbe probe_driver(const FileSystemView& fs, const EnvMap& env, std::chrono::milliseconds timeout,
                         const fs::path& root = "/");

}  // namespace cudaenv
