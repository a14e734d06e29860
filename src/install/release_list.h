#pragma once
// The releases a redist folder offers, as read from its listing or a mirror's index, and the
// copy of that answer kept in CUDAENV_ROOT/cache. Pure: the reading and caching live in
// src/mirror/release_discovery.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "install/catalog.h"

namespace cudaenv {

struct ListedRelease {
  std::string label;
  std::optional<std::string> date;
};

// What `base_url` offers as a catalog: the listed labels that are offered, newest first, with
// the pins (and, where the listing has none, the dates) of the shipped catalog.
ReleaseCatalog catalog_from_listing(const std::vector<ListedRelease>& listed, const std::string& base_url,
                                    const ReleaseCatalog& shipped);

struct ReleaseListCache {
  std::string base_url;
  std::string origin;           // "listing" or "mirror index"
  std::int64_t fetched_at = 0;  // seconds since the epoch
  std::vector<ListedRelease> releases;
};

inline constexpr std::int64_t kReleaseListTtlSeconds = 24 * 3600;

std::string render_release_cache(const ReleaseListCache& cache);
// nullopt for anything that is not a cache file this code wrote (it is then fetched again).
std::optional<ReleaseListCache> parse_release_cache(std::string_view text);
// Fetched less than a day before `now` (a date in the future is not fresh).
bool is_fresh(const ReleaseListCache& cache, std::int64_t now);

}  // namespace cudaenv
