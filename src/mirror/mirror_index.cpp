#include "mirror/mirror_index.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "install/release_list.h"

namespace cudaenv {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

Error index_error(const std::string& source, const std::string& what) {
  return make_error(source + ": " + what, "delete it and run `cudaenv mirror sync VERSION --to DIR` to rebuild it");
}

std::optional<MirrorFile> file_from(const json& object) {
  if (!object.is_object()) return std::nullopt;
  MirrorFile file;
  file.component = object.value("component", "");
  file.version = object.value("version", "");
  file.platform = object.value("platform", "");
  file.relative_path = object.value("relative_path", "");
  file.sha256 = object.value("sha256", "");
  auto size = object.find("size");
  if (size == object.end() || !size->is_number_unsigned()) return std::nullopt;
  file.size = size->get<std::uint64_t>();
  if (file.relative_path.empty() || file.sha256.size() != 64 || !is_contained_path(file.relative_path)) return std::nullopt;
  return file;
}

ordered_json file_json(const MirrorFile& file) {
  ordered_json out;
  if (!file.component.empty()) out["component"] = file.component;
  if (!file.version.empty()) out["version"] = file.version;
  if (!file.platform.empty()) out["platform"] = file.platform;
  out["relative_path"] = file.relative_path;
  out["sha256"] = file.sha256;
  out["size"] = file.size;
  return out;
}

auto file_key(const MirrorFile& file) { return std::tie(file.platform, file.component, file.relative_path); }

void sort_files(std::vector<MirrorFile>& files) {
  std::sort(files.begin(), files.end(), [](const MirrorFile& a, const MirrorFile& b) { return file_key(a) < file_key(b); });
}

void sort_releases(std::vector<MirrorRelease>& releases) {
  std::sort(releases.begin(), releases.end(), [](const MirrorRelease& a, const MirrorRelease& b) {
    return parse_version(a.label) > parse_version(b.label);
  });
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
  json root = json::parse(text, nullptr, false);
  if (root.is_discarded() || !root.is_object()) return index_error(source, "is not a JSON object");
  auto releases = root.find("releases");
  if (releases == root.end() || !releases->is_array()) return index_error(source, "has no \"releases\" array");
  MirrorIndex index;
  for (const json& entry : *releases) {
    MirrorRelease release;
    release.label = entry.is_object() ? entry.value("label", "") : "";
    if (!parse_version(release.label)) return index_error(source, "a release has no label such as \"12.1.1\"");
    std::string where = "release " + release.label;
    if (auto date = entry.find("release_date"); date != entry.end() && date->is_string()) release.release_date = date->get<std::string>();
    auto manifest = file_from(entry.value("manifest", json::object()));
    if (!manifest) return index_error(source, where + " has no valid \"manifest\" entry");
    release.manifest = *manifest;
    for (const json& item : entry.value("files", json::array())) {
      auto file = file_from(item);
      if (!file) return index_error(source, where + " has a file entry without a contained relative_path, sha256 and size");
      release.files.push_back(*file);
    }
    sort_files(release.files);
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
  return root.dump(2) + "\n";
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
  if (held->manifest.sha256 == release.manifest.sha256) {
    for (const MirrorFile& old : held->files) {
      bool replaced = std::any_of(release.files.begin(), release.files.end(),
                                  [&](const MirrorFile& f) { return file_key(f) == file_key(old); });
      if (!replaced) release.files.push_back(old);
    }
  }
  sort_files(release.files);
  *held = std::move(release);
}

ReleaseCatalog mirror_catalog(const MirrorIndex& index, const std::string& base_url, const ReleaseCatalog& shipped) {
  std::vector<ListedRelease> listed;
  for (const MirrorRelease& held : index.releases) listed.push_back(ListedRelease{held.label, held.release_date});
  return catalog_from_listing(listed, base_url, shipped);
}

}  // namespace cudaenv
