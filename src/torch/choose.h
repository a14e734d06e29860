#pragma once
// Which torch build fits a CUDA toolkit and a driver (pure: no disk, no environment).
// Rule: the exact cuXY for the toolkit; else the nearest minor of the same major, with a
// warning; never another major. A driver below the major's floor is an error.

#include <optional>
#include <string>
#include <vector>

#include "core/version.h"
#include "torch/matrix.h"
#include "util/result.h"

namespace cudaenv {

struct TorchQuery {
  std::optional<Version> cuda;           // the toolkit's CUDA; ignored with cpu
  std::string cuda_origin;               // "set by /p/cuda.toml", "--cuda"
  std::optional<std::string> torch;      // the wanted release as written: "2.5.1", or "2.5" for its newest
  std::string torch_origin;              // "--torch", "/p/cuda.toml [torch] version"
  std::optional<std::string> driver;     // a version: "550.54.14"
  std::string driver_origin;             // "--driver", "/sys/module/nvidia/version"
  std::vector<ComputeCapability> archs;  // of the GPUs to run on: 7.0, 8.6
  std::string archs_origin;              // "--arch"
  bool cpu = false;
};

enum class TorchMatch { exact, nearest_minor, cpu };

struct TorchChoice {
  TorchRelease release;
  TorchMatch match = TorchMatch::exact;
  std::optional<Version> variant;         // the CUDA of the chosen build; none for cpu
  std::optional<std::string> min_driver;  // what that build's CUDA major needs
  std::vector<std::string> warnings;      // for stderr: a mismatch the user should know about
  std::vector<std::string> notes;         // for stderr: explanations
};

Result<TorchChoice> choose_torch(const TorchMatrix& matrix, const TorchQuery& query);

const char* match_label(TorchMatch match);

// UV_TORCH_BACKEND as [torch] backend asks (`setting`): "cpu"; nothing for "none"; for "auto" the
// cuXY choose_torch() picks for `query`, as `cudaenv torch` would, and nothing where no build
// fits (uv then picks as it would without it).
std::optional<std::string> uv_torch_backend(const TorchMatrix& matrix, const std::string& setting, const TorchQuery& query);

}  // namespace cudaenv
