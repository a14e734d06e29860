#pragma once
// What the PyTorch index says exists, kept as a snapshot (cached under CUDAENV_ROOT/cache), and
// the shipped table brought up to date with it (pure: the fetching is cudaenv-fetch's).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "torch/index_parser.h"
#include "torch/matrix.h"
#include "util/file_system.h"

namespace cudaenv {

inline constexpr const char* kTorchIndexCacheName = "torch-index.json";
inline constexpr std::int64_t kTorchIndexTtlSeconds = 24 * 60 * 60;
// After a failed refresh, how long the shipped table is used before the index is tried again.
inline constexpr std::int64_t kTorchIndexRetrySeconds = 60 * 60;

struct TorchIndexSnapshot {
  std::string base;             // the index base it was read from
  std::int64_t fetched_at = 0;  // unix seconds; 0 when it never was
  std::vector<IndexRelease> torch;
  std::set<std::string> torchvision, torchaudio;  // the releases the index has
  // torch release -> the torchvision/torchaudio whose metadata requires exactly it (PEP 658)
  std::map<std::string, std::string> torchvision_for, torchaudio_for;
  // The last failed refresh, if later than fetched_at.
  std::int64_t failed_at = 0;
  std::string failure;
};

std::string render_snapshot(const TorchIndexSnapshot& snapshot);
// None for anything that is not a snapshot this version wrote (the cache is then refreshed).
std::optional<TorchIndexSnapshot> parse_snapshot(std::string_view text);

// The snapshot `text` holds, when it was read from the index at `base`.
std::optional<TorchIndexSnapshot> snapshot_of(std::string_view text, const std::string& base);
// The snapshot cached at `cache`, when it was read from the index at `base`.
std::optional<TorchIndexSnapshot> cached_snapshot(const FileSystemView& fs, const std::filesystem::path& cache,
                                                  const std::string& base);

// The torchvision/torchaudio releases the shipped table does not pair: their metadata is read.
std::vector<std::string> unpaired(const TorchMatrix& shipped, const std::set<std::string>& versions, bool torchaudio);

// The shipped table with the index's releases and CUDA builds: a release the table lacks is
// added (paired through the snapshot's metadata, torchaudio left out where none requires it),
// one the index lacks is dropped, and the table's experimental marks and pairings stay where
// the index agrees. `origin` ("index", "cache") is recorded on what came from the snapshot.
TorchMatrix merge_index(const TorchMatrix& shipped, const TorchIndexSnapshot& snapshot, const std::string& origin);

}  // namespace cudaenv
