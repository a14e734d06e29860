#pragma once
// The individual checks, grouped by file; run_checks (checks.cpp) calls them in report order.

#include <optional>

#include "doctor/checks.h"

namespace cudaenv::doctor_detail {

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

}  // namespace cudaenv::doctor_detail
