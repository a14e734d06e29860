#pragma once
// manifests/pytorch.toml: which torch releases exist, the CUDA builds download.pytorch.org
// carries for each, their torchvision/torchaudio, and the driver each CUDA major needs.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data_dir.h"
#include "core/version.h"
#include "util/result.h"

namespace cudaenv {

inline constexpr const char* kTorchMatrixFileName = "pytorch.toml";

struct TorchRelease {
  Version torch;
  std::vector<Version> cuda;              // major.minor of each cuXY index, ascending
  std::vector<Version> experimental;      // the subset RELEASE.md calls experimental
  Version pypi_default;                   // the CUDA of the plain PyPI wheel on Linux
  std::string torchvision;                // empty where none is known to pair with it
  std::optional<std::string> torchaudio;  // none for releases torchaudio skipped
  // Where the facts came from: "shipped table", "index" (read in this run) or "cache".
  std::string origin = "shipped table";          // the release and its CUDA builds
  std::string pairing_origin = "shipped table";  // its torchvision/torchaudio
  // What the index's wheels of it are for (empty from the shipped table): cp311, linux_x86_64.
  std::vector<std::string> python_tags, platforms;
};

// From torch release `torch_from` on, the cuXY builds of `cuda` have kernels for GPUs of compute
// capability `min_arch` and newer only (the older ones get "no kernel image is available").
struct KernelFloor {
  Version cuda;
  Version torch_from;
  ComputeCapability min_arch;
};

struct TorchMatrix {
  std::filesystem::path path;
  std::string index_url;                       // "https://download.pytorch.org/whl"
  std::string index_origin = "shipped table";  // or CUDAENV_TORCH_INDEX
  std::vector<TorchRelease> releases;          // ascending by torch version
  // CUDA major -> minimum Linux driver, as NVIDIA writes it ("450.80.02": the zero matters to people).
  std::map<int, std::string> min_driver;
  // DeepSpeed's cuda_minor_mismatch_ok: CUDA major -> minors it tolerates mixing.
  std::map<int, std::vector<Version>> deepspeed_minor_ok;
  std::vector<KernelFloor> kernel_floors;
};

// Strict: a missing or mistyped key, an unknown key or a malformed version is an
// error naming file:line:column.
Result<TorchMatrix> parse_torch_matrix(const std::filesystem::path& path, std::string_view text);

// pytorch.toml from the data folder cudaenv ships.
Result<TorchMatrix> load_torch_matrix(const DataFiles& data);

// Makes `base` (CUDAENV_TORCH_INDEX's value, when set and not empty: a proxy of
// download.pytorch.org/whl such as Artifactory or Nexus, or a copy of it) the index of every
// printed URL.
Status use_index_base(TorchMatrix& matrix, const std::string& base);

// The oldest compute capability the `cuda` build of `release` has kernels for, where the table says.
std::optional<ComputeCapability> oldest_kernel_arch(const TorchMatrix& matrix, const TorchRelease& release, const Version& cuda);

// 12.4 -> "cu124": the name of its index under download.pytorch.org/whl/.
std::string cuda_variant_tag(const Version& cuda);

}  // namespace cudaenv
