#pragma once
// Which CUDA releases a redist folder offers, learnt from the folder itself so that a new
// release needs no new cudaenv: a mirror's cudaenv-mirror.json where it has one, else the
// folder's listing of redistrib_<label>.json files (NVIDIA's index page, nginx autoindex,
// Apache, or a file:// folder). An http(s) answer is cached in CACHE/releases for a day.

#include <filesystem>
#include <optional>
#include <string>

#include "install/catalog.h"
#include "util/result.h"

namespace cudaenv {

// offline: a cached answer of any age, else the shipped list; never the network (file:// folders
// are still read: they are local). For completions, which must not wait on a network.
enum class ListFreshness { cache_ok, refresh, offline };

struct DiscoveredReleases {
  ReleaseCatalog catalog;
  std::string origin;               // "listing", "mirror index", "cache", "stale cache" or "shipped list"
  std::optional<Error> unreadable;  // why the folder could not be read, when it fell back
};

// Never fails: a folder that cannot be read falls back to a stale cached answer, else to
// `shipped`, and says why in `unreadable`.
DiscoveredReleases discover_releases(const ReleaseCatalog& shipped, const std::string& base_url,
                                     const std::filesystem::path& cache_dir, ListFreshness freshness);

}  // namespace cudaenv
