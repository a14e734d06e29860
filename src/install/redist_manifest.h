#pragma once
// NVIDIA's redistrib_<label>.json (format: docs/sources.md): parsed without I/O.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace cudaenv {

struct RedistArtifact {
  std::string relative_path;  // below the manifest's folder
  std::string sha256;         // lowercase hex
  std::uint64_t size = 0;     // bytes ("size" is a string in the JSON)
};

struct RedistComponent {
  std::string key;      // "cuda_nvcc": what --component names
  std::string name;     // "CUDA NVCC"
  std::string version;  // the component's own version, not the release label
  // platform ("linux-x86_64") -> artifact; variant manifests nest one more level,
  // keyed "cuda12", ... (kept in `variants`).
  std::map<std::string, RedistArtifact> platforms;
  std::map<std::string, std::map<std::string, RedistArtifact>> variants;
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
// relative_path is a clean path in its component's folder, in file-name characters, and never
// names a manifest, the mirror index or a partial download; no two archives share a file name.
Result<RedistManifest> parse_redist_manifest(std::string_view text, const std::string& source);

// A relative path that stays inside its folder: not absolute, no "..", "." or empty parts.
bool is_contained_path(std::string_view relative_path);

}  // namespace cudaenv
