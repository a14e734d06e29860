#pragma once
// A target: a GPU machine saved once (its driver, the CUDA that driver runs, its GPUs) so that
// a machine without those GPUs (a login node, CI, a Docker build) resolves for it: doctor,
// `torch`, `install` and the environment of the hook, `exec` and `env` (docs/guide.md
// "Targets"). This is the pure part: the file's text, its name, the variables it exports.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/version.h"
#include "util/environment.h"
#include "util/result.h"

namespace cudaenv {

namespace fs = std::filesystem;

struct TargetGpu {
  std::string name;  // "NVIDIA A100-SXM4-80GB"; "" for one written by hand (`--gpu 8.0`)
  ComputeCapability capability;
};

struct Target {
  std::string name;  // the file's name without .toml
  fs::path path;     // the file it was read from, or is saved as
  DriverVersion driver;
  std::optional<Version> cuda;  // the newest CUDA the driver runs (cuDriverGetVersion), major.minor
  std::vector<TargetGpu> gpus;
  std::string saved_from;  // "probed on node17" or "written by hand": for `target show`
};

// More GPUs than any machine has: a file that lists more is refused, not believed.
inline constexpr size_t kMaxTargetGpus = 64;

// A target's name as a file name and a cuda.toml value: letters, digits, '.', '_' and '-',
// starting with a letter or digit, at most 64 characters.
bool is_valid_target_name(std::string_view name);

// The error for a name that is none, naming where it was given ("CUDAENV_TARGET", "a100 x").
Error invalid_target_name(std::string_view name, const std::string& where);

// The file at `path` (named NAME.toml); every error names the file and says what to write.
Result<Target> parse_target(const fs::path& path, std::string_view text);

// The file's text: what parse_target reads back to the same target.
std::string render_target(const Target& target);

// Each capability once, in ascending order.
std::vector<ComputeCapability> target_capabilities(const Target& target);

// The variables a target gives the tools that would otherwise read this machine's driver and
// GPUs (docs/sources.md "Targets"): TORCH_CUDA_ARCH_LIST and CUDAARCHS (not where cuda.toml's
// arch sets them: `project_sets_arch`), UV_CUDA_DRIVER_VERSION, CONDA_OVERRIDE_CUDA,
// NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION and NV_VARIANT_PROVIDER_FORCE_SM_ARCH; none the
// user set in `user_env` (the environment before cudaenv's changes).
std::vector<std::pair<std::string, std::string>> target_variables(const Target& target, const EnvMap& user_env,
                                                                  bool project_sets_arch);

}  // namespace cudaenv
