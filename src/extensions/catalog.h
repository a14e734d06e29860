#pragma once
// manifests/extensions.toml: which compiled extensions cudaenv knows, how each is published for
// a torch (the PyTorch index, prebuilt wheels at a URL, PyPI, or a source build only), the C++
// ABI rule of torch's wheels, and the memory one compile job of each takes.

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

inline constexpr const char* kExtensionCatalogFileName = "extensions.toml";

enum class Publishing { pytorch_index, wheels, pypi, source };

// A PyPI release whose wheels require one torch (vLLM pins it exactly).
struct PinnedRelease {
  std::string version;
  Version torch;
  int cuda_major = 0;
};

struct ExtensionEntry {
  std::string name;  // PEP 503-normalised: flash-attn
  Publishing kind = Publishing::source;
  bool local_tag = false;                                      // pytorch-index: pinned as name==version+cuXY
  std::string latest;                                          // wheels: the release advised when none is asked for
  std::string wheel;                                           // wheels: URL pattern
  std::string source;                                          // what pip builds from; {version} filled in
  std::vector<std::pair<std::string, std::string>> build_env;  // in the file's order
  std::vector<std::string> build_options;
  double job_memory_gb = 4;
  std::vector<PinnedRelease> releases;
};

struct ExtensionCatalog {
  std::filesystem::path path;
  Version cxx11_from;  // torch's Linux wheels use the new C++ ABI from this release on
  std::vector<ExtensionEntry> packages;

  // By any spelling of the name (flash_attn, Flash-Attn); null when unknown.
  const ExtensionEntry* find(std::string_view name) const;
  std::vector<std::string> names() const;
};

// Strict, as every shipped manifest: a missing or mistyped key, an unknown key or a malformed
// version is an error naming file:line:column.
Result<ExtensionCatalog> parse_extension_catalog(const std::filesystem::path& path, std::string_view text);
Result<ExtensionCatalog> load_extension_catalog(const DataFiles& data);

}  // namespace cudaenv
