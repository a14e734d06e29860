#pragma once
// Which CUDA releases a redist folder offers, learnt from the folder itself so that a new
// release needs no new cudaenv: a mirror's cudaenv-mirror.json where it has one, else the
// folder's listing of redistrib_<label>.json files (NVIDIA's index page, nginx autoindex,
// Apache mod_autoindex, or a file:// folder). An http(s) answer is cached in CACHE/releases for
// a day. Reading, merging and writing the mirror index, reading a listing and the cache's text
// are pure (a listing of any bytes gives a maybe empty answer in one pass); discover_releases
// does the fetching and caching.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/settings_table.h"
#include "install/archive.h"
#include "install/catalog.h"
#include "install/fetch_settings.h"
#include "install/redist_manifest.h"
#include "util/result.h"

namespace cudaenv {

// cudaenv-mirror.json: what a mirror folder made by `cudaenv mirror sync` holds, every release
// with every file, so that `mirror verify` knows each file to re-check too.
inline constexpr const char* kMirrorIndexName = "cudaenv-mirror.json";

// One file the mirror holds: an archive of a platform, its url its path below the mirror folder
// (written as "relative_path"), or the manifest itself (named "manifest", without version or platform).
struct MirrorFile {
  std::string platform;  // "linux-x86_64"
  Archive archive;
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

// A folder without a mirror index is read from its listing of manifests.

// "redistrib_12.1.1.json" -> "12.1.1"; anything else (other names, 4-part or non-canonical
// labels such as "12.01.1") -> nullopt.
std::optional<std::string> label_from_file_name(std::string_view name);

// The labels of every link (`<a href>`, see html_anchors) in `html` whose last path segment
// names a redistrib_<label>.json, each once, newest first. Where a link points does not
// matter: manifests are always fetched from the folder itself.
std::vector<std::string> parse_redist_listing(std::string_view html);

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

// offline: a cached answer of any age, else the shipped list; never the network (file:// folders
// are still read: they are local). For completions, which must not wait on a network.
enum class ListFreshness { cache_ok, refresh, offline };

struct DiscoveredReleases {
  ReleaseCatalog catalog;
  std::string origin;               // "listing", "mirror index", "cache", "stale cache" or "shipped list"
  std::optional<Error> unreadable;  // why the folder could not be read, when it fell back
  // A malformed cudaenv-mirror.json passed over for the folder's listing, naming the file and
  // the field ("" when none): each command that reads the folder says it once.
  std::string warning;
};

// Never fails: a folder that cannot be read falls back to a stale cached answer, else to
// `shipped`, and says why in `unreadable`.
DiscoveredReleases discover_releases(const ReleaseCatalog& shipped, const std::string& base_url,
                                     const std::filesystem::path& cache_dir, ListFreshness freshness, const FetchSettings& fetch);

}  // namespace cudaenv
