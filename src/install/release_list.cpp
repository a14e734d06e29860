#include "install/release_list.h"

#include <algorithm>
#include <nlohmann/json.hpp>

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

std::optional<ReleaseListCache> parse_release_cache(std::string_view text) {
  auto root = nlohmann::json::parse(text, nullptr, false);
  if (!root.is_object()) return std::nullopt;
  auto string_at = [](const nlohmann::json& object, const char* key) -> std::optional<std::string> {
    auto it = object.find(key);
    if (it == object.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  auto base = string_at(root, "base_url");
  auto origin = string_at(root, "origin");
  auto fetched = root.find("fetched_at");
  auto releases = root.find("releases");
  if (!base || !origin || fetched == root.end() || !fetched->is_number_integer() || releases == root.end() ||
      !releases->is_array()) {
    return std::nullopt;
  }
  ReleaseListCache cache{*base, *origin, fetched->get<std::int64_t>(), {}};
  for (const auto& entry : *releases) {
    if (!entry.is_object()) return std::nullopt;
    auto label = string_at(entry, "label");
    if (!label || !parse_version(*label)) return std::nullopt;
    cache.releases.push_back(ListedRelease{*label, string_at(entry, "release_date")});
  }
  return cache;
}

bool is_fresh(const ReleaseListCache& cache, std::int64_t now) {
  return cache.fetched_at <= now && now - cache.fetched_at < kReleaseListTtlSeconds;
}

}  // namespace cudaenv
