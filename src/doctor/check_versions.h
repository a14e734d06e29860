#pragma once
// Shared by the check files: the helpers that build findings and the fix commands they offer,
// and the individual checks, grouped by file, that run_checks calls in report order.

#include <optional>

#include "doctor/checks.h"

namespace cudaenv::doctor_detail {

// The fix that gives this shell the selected toolkit's environment.
inline constexpr const char* kAlignEnv = "eval \"$(cudaenv env)\"";

// checks.cpp
// "12.1.1" -> "12.1"
std::string mm(const Version& version);

Finding finding(std::string id, Severity severity, std::string title, std::string explanation = {},
                std::vector<std::string> fixes = {});

// `cudaenv use V`, preceded by `cudaenv install V` unless a matching toolkit is installed.
std::string use_toolkit_fix(const Version& version, const Probes& probes);

// The command that reinstalls torch for CUDA `version` into the probed interpreter, as
// `cudaenv torch` chooses it (for the driver and GPUs probed); where it cannot choose, the
// `cudaenv torch` line that explains why. `keep_version` pins the installed torch version; leave
// it off when that torch has no build for `version` (a new GPU needs a newer torch too).
std::string torch_fix(const Version& version, const Probes& probes, const CudaFacts& facts, bool keep_version = true);

// " (CUDA 12.4)", or nothing for an unknown version.
std::string cuda_suffix(const std::optional<Version>& version);

// Which nvcc each kind of tool runs, the PATH one being `on_path`: a plain call, torch and
// DeepSpeed ($CUDA_HOME, else PATH), CMake ($CUDACXX, else PATH).
std::string who_runs_what(const Probes& probes, const std::string& on_path);

// torch.__version__ without its local part: 2.1.2+cu121 -> 2.1.2
std::string public_torch_version(const std::string& version);

// check_versions.cpp
Finding check_selection(const Probes& probes);
Finding check_driver_present(const Probes& probes);
std::optional<Finding> check_driver_runs(const Probes& probes, const CudaFacts& facts, const std::string& id,
                                         const std::string& what, const std::optional<Version>& needed);
std::optional<Finding> check_toolkit_torch(const Probes& probes, const CudaFacts& facts);
std::optional<Finding> check_deepspeed(const Probes& probes, const CudaFacts& facts);
// cuDNN and NCCL in the toolkit's include/ against the ones torch carries.
std::vector<Finding> check_toolkit_libraries(const Probes& probes);
// The toolkit builds use has no row in cuda-facts.toml: say which checks that skips.
std::optional<Finding> check_facts(const Probes& probes, const CudaFacts& facts);
std::optional<Finding> check_deepspeed_skip(const Probes& probes, const CudaFacts& facts);
std::optional<Finding> check_torch_build(const Probes& probes, const CudaFacts& facts);

// check_archs.cpp
std::vector<Finding> check_gpus_toolkit(const Probes& probes, const CudaFacts& facts);
std::vector<Finding> check_gpus_torch(const Probes& probes, const CudaFacts& facts);
std::optional<Finding> check_arch_list(const Probes& probes, const CudaFacts& facts);
std::optional<Finding> check_deepspeed_archs(const Probes& probes, const CudaFacts& facts);

// check_paths.cpp
std::optional<Finding> check_compiler(const Probes& probes, const CudaFacts& facts);
std::optional<Finding> check_nvcc_path(const Probes& probes);
std::optional<Finding> check_cuda_home(const Probes& probes);
std::optional<Finding> check_library_path(const Probes& probes);
std::optional<Finding> check_python(const Probes& probes);

// check_found_first.cpp
std::optional<Finding> check_cuda_home_path(const Probes& probes);
std::optional<Finding> check_cuda_wheels(const Probes& probes);
std::optional<Finding> check_cudnn_parts(const Probes& probes);

// check_extensions.cpp
std::vector<Finding> check_extensions(const Probes& probes, const CudaFacts& facts);

// check_foreign_libraries.cpp
std::optional<Finding> check_foreign_libraries(const Probes& probes);

// check_wsl.cpp
std::vector<Finding> check_wsl(const Probes& probes);

}  // namespace cudaenv::doctor_detail
