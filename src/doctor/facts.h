#pragma once
// Per-CUDA facts doctor checks against (manifests/cuda-facts.toml): driver floors, the
// newest host compiler nvcc accepts, the GPU architectures it can build for, and
// DeepSpeed's and torch's rules that depend on the CUDA version.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/version.h"
#include "doctor/probes.h"
#include "extensions/catalog.h"
#include "torch/matrix.h"
#include "util/result.h"

namespace cudaenv {

struct CudaRelease {
  Version version;                      // major.minor
  std::optional<DriverVersion> driver;  // the toolkit's own driver (Linux, GA)
  std::optional<int> gcc_max;           // newest gcc major nvcc accepts
  std::optional<int> clang_max;
  std::vector<ComputeCapability> archs;  // the ones nvcc can generate code for

  bool builds_for(const ComputeCapability& arch) const;
  // Whether nvcc can make native code that runs on a GPU of capability `cc` (one of its archs
  // runs_on it).
  bool runs_on(const ComputeCapability& cc) const;
};

// DeepSpeed's cuda_minor_mismatch_ok from one release until the next.
struct DeepSpeedList {
  Version from;
  std::map<int, std::vector<Version>> minor_ok;  // per major: mutually tolerated minors
};

// torch's CUDA_GCC_VERSIONS rows that hold from one torch release on.
struct TorchGccBounds {
  Version from;
  std::map<Version, int> gcc_max;  // per CUDA major.minor: the newest gcc major BuildExtension takes
};

struct CudaFacts {
  std::vector<CudaRelease> releases;                             // oldest first
  std::map<int, DriverVersion> family_driver;                    // per major: minor-compatibility floor (pytorch.toml)
  std::vector<DeepSpeedList> deepspeed_lists;                    // oldest first; the newest is pytorch.toml's
  std::optional<Version> deepspeed_skip_from;                    // the first DeepSpeed that reads DS_SKIP_CUDA_CHECK
  std::map<std::string, std::vector<std::string>> named_arches;  // "Ampere" -> 8.0, 8.6
  std::vector<std::string> torch_supported_arches;               // TORCH_CUDA_ARCH_LIST entries torch accepts
  std::vector<TorchGccBounds> torch_gcc;                         // oldest first
  std::vector<ComputeCapability> integrated_archs;               // Jetson/Tegra: 7.2, 8.7, ...
  std::map<ComputeCapability, Version> torch_last_cuda;          // GPUs up to this capability: torch wheels of this CUDA or older
  TorchMatrix torch_matrix;     // pytorch.toml itself: doctor's torch fixes are `cudaenv torch`'s commands
  ExtensionCatalog extensions;  // extensions.toml: doctor's fixes for extensions are `cudaenv torch --with`'s advice

  // The release of `version`'s major.minor, if known.
  const CudaRelease* release(const Version& version) const;
  // The oldest / newest release whose nvcc can target `cc` itself.
  const CudaRelease* first_building_for(const ComputeCapability& cc) const;
  const CudaRelease* last_building_for(const ComputeCapability& cc) const;
  // The newest release a driver that supports up to CUDA `driver_cuda` runs fully.
  const CudaRelease* newest_within(const Version& driver_cuda) const;
  // The CUDA of torch wheels to suggest for a GPU of capability `cc` that torch lacks.
  std::optional<Version> torch_cuda_for(const ComputeCapability& cc) const;
  // The list DeepSpeed `deepspeed` ships (nullopt: its version is unknown, the newest's);
  // null for a DeepSpeed older than every list.
  const DeepSpeedList* deepspeed_list(const std::optional<Version>& deepspeed) const;
  // DeepSpeed's assert_no_cuda_mismatch: equal major.minor, or both in the tolerated list.
  bool deepspeed_tolerates(const Version& nvcc, const Version& torch_cuda, const std::optional<Version>& deepspeed) const;
  // The first DeepSpeed release that tolerates the pair, if any does.
  std::optional<Version> deepspeed_first_tolerating(const Version& nvcc, const Version& torch_cuda) const;
  // The newest gcc major torch `torch`'s BuildExtension accepts with CUDA `cuda`; none when
  // that torch has no bound for it (it only warns).
  std::optional<int> torch_gcc_max(const Version& torch, const Version& cuda) const;
};

Result<CudaFacts> parse_cuda_facts(const std::filesystem::path& path, std::string_view text);
// The per-major facts pytorch.toml holds for `cudaenv torch` too: driver floors, DeepSpeed's list.
Status adopt_torch_matrix(CudaFacts& facts, const TorchMatrix& matrix);
// manifests/cuda-facts.toml, pytorch.toml and extensions.toml from the shipped data folder.
Result<CudaFacts> load_cuda_facts(const DataFiles& data);

// The release number a package version starts with: "2.11.0+cu128", "0.15.0rc1" -> 2.11.0, 0.15.0.
std::optional<Version> release_version(std::string_view text);

}  // namespace cudaenv
