#include "mirror/release_discovery.h"

#include <ctime>

#include "install/downloader.h"
#include "install/release_list.h"
#include "mirror/mirror_index.h"
#include "util/file_system.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace cudaenv {

namespace fs = std::filesystem;

namespace {

struct Listing {
  std::string origin;
  std::vector<ListedRelease> releases;
};

std::vector<ListedRelease> undated(const std::vector<std::string>& labels) {
  std::vector<ListedRelease> out;
  for (const std::string& label : labels) out.push_back(ListedRelease{label, std::nullopt});
  return out;
}

// A file:// folder is read directly: curl lists no folders.
Result<std::vector<std::string>> local_listing(const std::string& base_url) {
  fs::path dir = base_url.substr(std::string_view("file://").size());
  RealFileSystem disk;
  if (disk.kind(dir) != EntryKind::directory) return make_error(dir.string() + " is not a folder");
  std::vector<std::string> labels;
  for (const std::string& name : disk.list_dir(dir)) {
    if (auto label = label_from_file_name(name)) labels.push_back(*label);
  }
  return labels;
}

Result<std::vector<std::string>> folder_listing(const std::string& base_url) {
  if (starts_with(base_url, "file://")) return local_listing(base_url);
  // One try: a folder that does not answer falls back at once instead of delaying the command.
  DownloadOptions options;
  options.tries = 1;
  CUDAENV_TRY_ASSIGN(auto html, fetch_text(base_url, options));
  return parse_redist_listing(html);
}

// BASE/cudaenv-mirror.json over http(s) or file://, probed once: a folder without one is the
// common case (NVIDIA's own), not worth a retry.
Result<MirrorIndex> fetch_mirror_index(const std::string& base_url) {
  DownloadOptions options;
  options.tries = 1;
  CUDAENV_TRY_ASSIGN(auto text, fetch_text(base_url + kMirrorIndexName, options));
  return parse_mirror_index(text, base_url + kMirrorIndexName);
}

// The mirror's index first (it knows release dates), then the folder's listing. NVIDIA's own
// folder has no index, so it costs one request.
Result<Listing> read_listing(const ReleaseCatalog& shipped, const std::string& base_url) {
  std::string index_problem = "has no " + std::string(kMirrorIndexName);
  if (base_url != shipped.default_base) {
    auto index = fetch_mirror_index(base_url);
    if (index) {
      Listing listing{"mirror index", {}};
      for (const MirrorRelease& release : index->releases) {
        listing.releases.push_back(ListedRelease{release.label, release.release_date});
      }
      return listing;
    }
    // Missing or broken (releases[0].label must be a string): the reason is worth showing.
    index_problem = "no usable " + std::string(kMirrorIndexName) + " (" + index.error().message + ")";
  }
  CUDAENV_TRY_ASSIGN(auto labels, folder_listing(base_url));
  if (labels.empty()) return make_error(base_url + " lists no redistrib_<label>.json file and has " + index_problem);
  return Listing{"listing", undated(labels)};
}

fs::path cache_file(const fs::path& cache_dir, const std::string& base_url) {
  return cache_dir / "releases" / (sha256_hex(base_url).substr(0, 16) + ".json");
}

std::optional<ReleaseListCache> read_cache(const fs::path& path, const std::string& base_url) {
  auto text = RealFileSystem().read_file(path);
  if (!text) return std::nullopt;
  auto cache = parse_release_cache(*text);
  if (!cache || cache->base_url != base_url) return std::nullopt;
  return cache;
}

// A cache that cannot be written only costs a request next time.
void write_cache(const fs::path& path, const ReleaseListCache& cache) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (!ec) (void)write_file_atomically(path, render_release_cache(cache));
}

}  // namespace

DiscoveredReleases discover_releases(const ReleaseCatalog& shipped, const std::string& base_url, const fs::path& cache_dir,
                                     ListFreshness freshness) {
  // A local folder is cheap to read and changes under `mirror sync`: never cached.
  bool cacheable = !starts_with(base_url, "file://");
  fs::path path = cache_file(cache_dir, base_url);
  std::int64_t now = std::time(nullptr);
  std::optional<ReleaseListCache> cached = cacheable ? read_cache(path, base_url) : std::nullopt;
  if (cached && freshness == ListFreshness::cache_ok && is_fresh(*cached, now)) {
    return {catalog_from_listing(cached->releases, base_url, shipped), "cache", std::nullopt};
  }
  if (freshness == ListFreshness::offline && cacheable) {
    if (cached) return {catalog_from_listing(cached->releases, base_url, shipped), "cache", std::nullopt};
    return {shipped, "shipped list", std::nullopt};
  }
  auto listing = read_listing(shipped, base_url);
  if (listing) {
    if (cacheable) write_cache(path, ReleaseListCache{base_url, listing->origin, now, listing->releases});
    return {catalog_from_listing(listing->releases, base_url, shipped), listing->origin, std::nullopt};
  }
  if (cached) return {catalog_from_listing(cached->releases, base_url, shipped), "stale cache", listing.take_error()};
  return {shipped, "shipped list", listing.take_error()};
}

}  // namespace cudaenv
