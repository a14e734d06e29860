#pragma once
// NVIDIA's redistrib_<label>.json (format: docs/sources.md): parsed without I/O.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "install/archive.h"
#include "util/result.h"

namespace cudaenv {

struct RedistComponent {
  std::string key;      // "cuda_nvcc": what --component names
  std::string name;     // "CUDA NVCC"
  std::string version;  // the component's own version, not the release label
  // platform ("linux-x86_64") -> its archive, named by `key` and `version`, its url the
  // manifest's relative_path ("size" is a string in the JSON); variant manifests nest one more
  // level, keyed "cuda12", ... (kept in `variants`).
  std::map<std::string, Archive> platforms;
  std::map<std::string, std::map<std::string, Archive>> variants;
};

struct RedistManifest {
  std::optional<std::string> release_date;
  std::optional<std::string> release_label;
  std::optional<std::string> release_product;
  std::vector<RedistComponent> components;  // sorted by key

  const RedistComponent* find(std::string_view key) const;
};

// No real archive comes near this; a manifest declaring more is refused.
inline constexpr std::uint64_t kMaxArchiveBytes = 16ull << 30;

// `source` (a URL or path) only names the manifest in error messages. Besides the format, the
// layout is checked, since install and mirror sync write files where it says: every
// relative_path (an archive's url) is a clean path in its component's folder, in file-name characters, and never
// names a manifest, the mirror index or a partial download; no two archives share a file name.
Result<RedistManifest> parse_redist_manifest(std::string_view text, const std::string& source);

// A relative path that stays inside its folder: not absolute, no "..", "." or empty parts.
bool is_contained_path(std::string_view relative_path);

}  // namespace cudaenv
