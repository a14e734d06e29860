#include "mirror/release_discovery.h"

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/version.h"
#include "install/downloader.h"
#include "util/file_system.h"
#include "util/html.h"
#include "util/json_reader.h"
#include "util/sha256.h"
#include "util/strings.h"
#include "util/url.h"

namespace cudaenv {

namespace fs = std::filesystem;

namespace {

using nlohmann::ordered_json;

auto file_key(const MirrorFile& file) { return std::tie(file.platform, file.archive.name, file.archive.url); }

void sort_files(std::vector<MirrorFile>& files) {
  std::sort(files.begin(), files.end(), [](const MirrorFile& a, const MirrorFile& b) { return file_key(a) < file_key(b); });
}

constexpr const char* kRebuildHint = "delete it and run `cudaenv mirror sync VERSION --to DIR` to rebuild it";

Result<MirrorFile> file_from(const JsonValue& object) {
  MirrorFile file;
  for (auto [key, field] :
       {std::pair{"component", &file.archive.name}, {"version", &file.archive.version}, {"platform", &file.platform}}) {
    CUDAENV_TRY_ASSIGN(auto value, object.optional_string(key));
    *field = value.value_or("");
  }
  CUDAENV_TRY_ASSIGN(auto relative_path, object.string_at("relative_path"));
  if (!is_contained_path(relative_path))
    return object.error("has relative_path \"" + relative_path + "\", which leaves the mirror folder");
  file.archive.url = relative_path;
  CUDAENV_TRY_ASSIGN(auto sha256, object.string_at("sha256"));
  if (sha256.size() != 64) return object.error("has a sha256 that is not 64 hex digits");
  file.archive.sha256 = sha256;
  CUDAENV_TRY_ASSIGN(auto size, object.at("size"));
  CUDAENV_TRY_ASSIGN(auto bytes, size.unsigned_integer());
  file.archive.size = bytes;
  return file;
}

Result<MirrorRelease> release_from(const JsonValue& entry) {
  MirrorRelease release;
  CUDAENV_TRY_ASSIGN(auto label, entry.string_at("label"));
  if (!parse_version(label)) return entry.error("has label \"" + label + "\", which is not a version such as \"12.1.1\"");
  release.label = label;
  CUDAENV_TRY_ASSIGN(auto date, entry.optional_string("release_date"));
  release.release_date = date;
  CUDAENV_TRY_ASSIGN(auto manifest, entry.at("manifest"));
  CUDAENV_TRY_ASSIGN(auto manifest_file, file_from(manifest));
  release.manifest = manifest_file;
  CUDAENV_TRY_ASSIGN(auto files, entry.find("files"));
  if (!files) return release;
  CUDAENV_TRY_ASSIGN(auto items, files->elements());
  for (const JsonValue& item : items) {
    CUDAENV_TRY_ASSIGN(auto file, file_from(item));
    release.files.push_back(std::move(file));
  }
  sort_files(release.files);
  return release;
}

ordered_json file_json(const MirrorFile& file) {
  ordered_json out;
  if (!file.archive.name.empty()) out["component"] = file.archive.name;
  if (!file.archive.version.empty()) out["version"] = file.archive.version;
  if (!file.platform.empty()) out["platform"] = file.platform;
  out["relative_path"] = file.archive.url;
  out["sha256"] = file.archive.sha256;
  out["size"] = file.archive.size;
  return out;
}

void sort_releases(std::vector<MirrorRelease>& releases) {
  std::sort(releases.begin(), releases.end(),
            [](const MirrorRelease& a, const MirrorRelease& b) { return parse_version(a.label) > parse_version(b.label); });
}

}  // namespace

std::vector<std::string> MirrorRelease::platforms() const {
  std::set<std::string> seen;
  for (const MirrorFile& file : files) seen.insert(file.platform);
  return {seen.begin(), seen.end()};
}

const MirrorRelease* MirrorIndex::find(std::string_view label) const {
  for (const MirrorRelease& release : releases) {
    if (release.label == label) return &release;
  }
  return nullptr;
}

Result<MirrorIndex> parse_mirror_index(std::string_view text, const std::string& source) {
  CUDAENV_TRY_ASSIGN(auto root, JsonValue::parse(text, source, kRebuildHint));
  CUDAENV_TRY_ASSIGN(auto releases, root.at("releases"));
  CUDAENV_TRY_ASSIGN(auto entries, releases.elements());
  MirrorIndex index;
  for (const JsonValue& entry : entries) {
    CUDAENV_TRY_ASSIGN(auto release, release_from(entry));
    index.releases.push_back(std::move(release));
  }
  sort_releases(index.releases);
  return index;
}

std::string render_mirror_index(const MirrorIndex& index) {
  ordered_json root;
  root["format"] = 1;
  root["releases"] = ordered_json::array();
  for (const MirrorRelease& release : index.releases) {
    ordered_json entry;
    entry["label"] = release.label;
    entry["release_date"] = release.release_date ? ordered_json(*release.release_date) : ordered_json(nullptr);
    entry["platforms"] = release.platforms();
    entry["manifest"] = file_json(release.manifest);
    entry["files"] = ordered_json::array();
    for (const MirrorFile& file : release.files) entry["files"].push_back(file_json(file));
    root["releases"].push_back(std::move(entry));
  }
  return json_text(root);
}

void merge_release(MirrorIndex& index, MirrorRelease release) {
  auto held = std::find_if(index.releases.begin(), index.releases.end(),
                           [&](const MirrorRelease& r) { return r.label == release.label; });
  if (held == index.releases.end()) {
    sort_files(release.files);
    index.releases.push_back(std::move(release));
    sort_releases(index.releases);
    return;
  }
  if (held->manifest.archive.sha256 == release.manifest.archive.sha256) {
    for (const MirrorFile& old : held->files) {
      bool replaced = std::any_of(release.files.begin(), release.files.end(),
                                  [&](const MirrorFile& f) { return file_key(f) == file_key(old); });
      if (!replaced) release.files.push_back(old);
    }
  }
  sort_files(release.files);
  *held = std::move(release);
}

namespace {

std::string_view last_segment(std::string_view link) {
  link = strip_url_query(link);
  size_t slash = link.rfind('/');
  return slash == std::string_view::npos ? link : link.substr(slash + 1);
}

}  // namespace

std::optional<std::string> label_from_file_name(std::string_view name) {
  constexpr std::string_view prefix = "redistrib_", suffix = ".json";
  if (name.size() <= prefix.size() + suffix.size() || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - suffix.size()) != suffix) {
    return std::nullopt;
  }
  std::string_view label = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  auto version = parse_version(label);
  if (!version || version->parts.size() != 3 || version->str() != label) return std::nullopt;
  return std::string(label);
}

std::vector<std::string> parse_redist_listing(std::string_view html) {
  std::vector<std::string> labels;
  for (const HtmlAttributes& anchor : html_anchors(html)) {
    auto href = anchor.find("href");
    if (href == anchor.end()) continue;
    if (auto label = label_from_file_name(last_segment(href->second))) labels.push_back(std::move(*label));
  }
  std::sort(labels.begin(), labels.end(),
            [](const std::string& a, const std::string& b) { return *parse_version(a) > *parse_version(b); });
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  return labels;
}

ReleaseCatalog catalog_from_listing(const std::vector<ListedRelease>& listed, const std::string& base_url,
                                    const ReleaseCatalog& shipped) {
  ReleaseCatalog catalog;
  catalog.default_base = base_url;
  catalog.oldest = shipped.oldest;
  catalog.not_offered = shipped.not_offered;
  for (const ListedRelease& entry : listed) {
    auto version = parse_version(entry.label);
    if (!version || !shipped.offered(entry.label) || catalog.find(entry.label)) continue;
    const Release* known = shipped.find(entry.label);
    std::optional<std::string> date = entry.date;
    if (!date && known) date = known->date;
    catalog.releases.push_back(Release{entry.label, *version, date, known ? known->sha256 : std::nullopt});
  }
  std::sort(catalog.releases.begin(), catalog.releases.end(),
            [](const Release& a, const Release& b) { return a.version > b.version; });
  return catalog;
}

std::string render_release_cache(const ReleaseListCache& cache) {
  nlohmann::ordered_json root;
  root["format"] = 1;
  root["base_url"] = cache.base_url;
  root["origin"] = cache.origin;
  root["fetched_at"] = cache.fetched_at;
  root["releases"] = nlohmann::ordered_json::array();
  for (const ListedRelease& release : cache.releases) {
    nlohmann::ordered_json entry;
    entry["label"] = release.label;
    if (release.date) entry["release_date"] = *release.date;
    root["releases"].push_back(std::move(entry));
  }
  return json_text(root);
}

namespace {

Result<ReleaseListCache> read_release_cache(std::string_view text) {
  CUDAENV_TRY_ASSIGN(auto root, JsonValue::parse(text, "release cache"));
  ReleaseListCache cache;
  for (auto [key, field] : {std::pair{"base_url", &cache.base_url}, {"origin", &cache.origin}}) {
    CUDAENV_TRY_ASSIGN(auto value, root.string_at(key));
    *field = std::move(value);
  }
  CUDAENV_TRY_ASSIGN(auto fetched, root.at("fetched_at"));
  CUDAENV_TRY_ASSIGN(auto seconds, fetched.integer());
  cache.fetched_at = seconds;
  CUDAENV_TRY_ASSIGN(auto releases, root.at("releases"));
  CUDAENV_TRY_ASSIGN(auto entries, releases.elements());
  for (const JsonValue& entry : entries) {
    CUDAENV_TRY_ASSIGN(auto label, entry.string_at("label"));
    if (!parse_version(label)) return entry.error("is not a version");
    CUDAENV_TRY_ASSIGN(auto date, entry.optional_string("release_date"));
    cache.releases.push_back(ListedRelease{label, date});
  }
  return cache;
}

}  // namespace

std::optional<ReleaseListCache> parse_release_cache(std::string_view text) {
  auto cache = read_release_cache(text);
  if (!cache) return std::nullopt;
  return std::move(*cache);
}

bool is_fresh(const ReleaseListCache& cache, std::int64_t now) {
  return cache.fetched_at <= now && now - cache.fetched_at < kReleaseListTtlSeconds;
}

namespace {

struct Listing {
  std::string origin;
  std::vector<ListedRelease> releases;
  std::string warning;  // DiscoveredReleases::warning
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

Result<std::vector<std::string>> folder_listing(const std::string& base_url, const FetchSettings& fetch) {
  if (starts_with(base_url, "file://")) return local_listing(base_url);
  // One try: a folder that does not answer falls back at once instead of delaying the command.
  DownloadOptions options;
  options.tries = 1;
  options.fetch = fetch;
  CUDAENV_TRY_ASSIGN(auto html, fetch_text(base_url, options));
  return parse_redist_listing(html);
}

// The mirror's index first (it knows release dates), then the folder's listing. NVIDIA's own
// folder has no index, so it costs one request. The index is probed once: a folder without one
// is the common case, not worth a retry; one that is there but malformed is said.
Result<Listing> read_listing(const ReleaseCatalog& shipped, const std::string& base_url, const FetchSettings& fetch) {
  std::string index_problem = "has no " + std::string(kMirrorIndexName);
  std::string warning;
  if (base_url != shipped.default_base) {
    DownloadOptions options;
    options.tries = 1;
    options.fetch = fetch;
    std::string index_url = base_url + kMirrorIndexName;
    auto text = fetch_text(index_url, options);
    auto index = text ? parse_mirror_index(*text, index_url) : Result<MirrorIndex>(text.take_error());
    if (index) {
      Listing listing{"mirror index", {}, {}};
      for (const MirrorRelease& release : index->releases) {
        listing.releases.push_back(ListedRelease{release.label, release.release_date});
      }
      return listing;
    }
    // Missing or broken (releases[0].label must be a string): the reason is worth showing.
    index_problem = "no usable " + std::string(kMirrorIndexName) + " (" + index.error().message + ")";
    if (text) {
      const Error& malformed = index.error();
      warning = malformed.message + "; using the folder's listing instead" +
                (malformed.hint.empty() ? std::string() : " (" + malformed.hint + ")");
    }
  }
  CUDAENV_TRY_ASSIGN(auto labels, folder_listing(base_url, fetch));
  if (labels.empty()) return make_error(base_url + " lists no redistrib_<label>.json file and has " + index_problem);
  return Listing{"listing", undated(labels), warning};
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
                                     ListFreshness freshness, const FetchSettings& fetch) {
  // A local folder is cheap to read and changes under `mirror sync`: never cached.
  bool cacheable = !starts_with(base_url, "file://");
  fs::path path = cache_file(cache_dir, base_url);
  std::int64_t now = std::time(nullptr);
  std::optional<ReleaseListCache> cached = cacheable ? read_cache(path, base_url) : std::nullopt;
  if (cached && freshness == ListFreshness::cache_ok && is_fresh(*cached, now)) {
    return {catalog_from_listing(cached->releases, base_url, shipped), "cache", std::nullopt, {}};
  }
  if (freshness == ListFreshness::offline && cacheable) {
    if (cached) return {catalog_from_listing(cached->releases, base_url, shipped), "cache", std::nullopt, {}};
    return {shipped, "shipped list", std::nullopt, {}};
  }
  auto listing = read_listing(shipped, base_url, fetch);
  if (listing) {
    if (cacheable) write_cache(path, ReleaseListCache{base_url, listing->origin, now, listing->releases});
    return {catalog_from_listing(listing->releases, base_url, shipped), listing->origin, std::nullopt, listing->warning};
  }
  if (cached) return {catalog_from_listing(cached->releases, base_url, shipped), "stale cache", listing.take_error(), {}};
  return {shipped, "shipped list", listing.take_error(), {}};
}

}  // namespace cudaenv
