#pragma once
// cudaenv-mirror.json: what a mirror folder made by `cudaenv mirror sync` holds, so
// `list-remote --mirror` and `install --mirror` know its releases and `mirror verify` knows
// every file to re-check. Parsing, merging and writing it are pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "install/redist_manifest.h"
#include "util/result.h"

namespace cudaenv {

inline constexpr const char* kMirrorIndexName = "cudaenv-mirror.json";

struct MirrorFile {
  std::string component;  // "cuda_nvcc"; for the manifest itself, "manifest"
  std::string version;    // the component's own version
  std::string platform;   // "linux-x86_64"
  std::string relative_path;
  std::string sha256;
  std::uint64_t size = 0;
};

struct MirrorRelease {
  std::string label;  // "12.1.1"
  std::optional<std::string> release_date;
  MirrorFile manifest;            // redistrib_<label>.json as fetched
  std::vector<MirrorFile> files;  // sorted by platform, then component

  std::vector<std::string> platforms() const;
};

struct MirrorIndex {
  std::vector<MirrorRelease> releases;  // newest first

  const MirrorRelease* find(std::string_view label) const;
};

Result<MirrorIndex> parse_mirror_index(std::string_view text, const std::string& source);
std::string render_mirror_index(const MirrorIndex& index);

// Adds a freshly synced release. A release already held with the same manifest gains the new
// files; one whose manifest changed upstream is replaced, since its old files no longer match.
void merge_release(MirrorIndex& index, MirrorRelease release);

}  // namespace cudaenv
