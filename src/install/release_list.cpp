#include "install/release_list.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "util/json_reader.h"

namespace cudaenv {

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
  return root.dump(2) + "\n";
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

}  // namespace cudaenv
