#pragma once
// cuda.toml: the project file (docs/design.md "cuda.toml"). Parsing is strict about types
// and positions; editing touches only the text of one [cuda] key (version, host_compiler).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace cudaenv {

namespace fs = std::filesystem;

inline constexpr const char* kProjectFileName = "cuda.toml";

struct CudaToml {
  fs::path path;
  std::string text;     // the bytes parsed: trust is checked on these, never on a second read
  std::string version;  // "" when the file pins none (after `use --unset`): the next setting decides
  std::optional<std::string> profile;
  std::optional<std::string> source;  // where `install` fetches from: "redist" | "pypi"
  std::vector<std::string> components;
  std::vector<std::string> arch;       // "8.9", "9.0a", "8.6+PTX"
  std::vector<std::string> libraries;  // "cudnn", "nccl@2.28" (LibrarySpec)
  bool lock = false;                   // install keeps cuda.lock beside it up to date
  // The compiler nvcc uses for host code: a name on PATH ("gcc-12") or a path (docs/host-compiler.md).
  std::optional<std::string> host_compiler;
  std::optional<std::string> torch_version;
  std::string torch_backend = "auto";                    // UV_TORCH_BACKEND: "auto" (the toolkit's cuXY), "cpu" or "none"
  std::optional<std::string> target;                     // [target] name: the saved GPU machine to resolve for
  std::vector<std::pair<std::string, std::string>> env;  // [env], applied only when trusted
  std::vector<std::string> warnings;                     // "file:line:col: unknown key ..."
};

Result<CudaToml> parse_cuda_toml(const fs::path& path, std::string_view text);

// `text` with [cuda] `key` (version, host_compiler) set to `value`; comments, order and other
// tables kept.
Result<std::string> set_cuda_toml_key(const fs::path& path, std::string_view text, std::string_view key, std::string_view value);

// `text` without [cuda] `key` (and without [cuda] when nothing else was in it); nullopt when
// nothing but comments would be left, so the file should go.
Result<std::optional<std::string>> unset_cuda_toml_key(const fs::path& path, std::string_view text, std::string_view key);

// A library of a toolkit as [cuda] libraries and `install --library` name it: "cudnn", or with a
// version prefix, "cudnn@9.10".
struct LibrarySpec {
  std::string name;     // "cudnn" or "nccl"
  std::string version;  // a version prefix ("9.10"), or "" for the newest
  std::string text() const { return version.empty() ? name : name + "@" + version; }
};

// The libraries cudaenv installs into a toolkit, in the order receipts and locks list them.
const std::vector<std::string>& known_libraries();

// `where` names the setting in errors ("[cuda] libraries" or "--library").
Result<LibrarySpec> parse_library_spec(std::string_view text, const std::string& where);

// A version request as written in cuda.toml, CUDAENV_VERSION or the global file:
// a version, "system", or a registered name. Never a path.
bool is_valid_version_request(std::string_view request);

}  // namespace cudaenv
