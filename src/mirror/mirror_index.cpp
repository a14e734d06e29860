#include "mirror/mirror_index.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "core/version.h"
#include "util/json_reader.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

using nlohmann::ordered_json;

auto file_key(const MirrorFile& file) { return std::tie(file.platform, file.component, file.relative_path); }

void sort_files(std::vector<MirrorFile>& files) {
  std::sort(files.begin(), files.end(), [](const MirrorFile& a, const MirrorFile& b) { return file_key(a) < file_key(b); });
}

constexpr const char* kRebuildHint = "delete it and run `cudaenv mirror sync VERSION --to DIR` to rebuild it";

Result<MirrorFile> file_from(const JsonValue& object) {
  MirrorFile file;
  for (auto [key, field] : {std::pair{"component", &file.component}, {"version", &file.version}, {"platform", &file.platform}}) {
    CUDAENV_TRY_ASSIGN(auto value, object.optional_string(key));
    *field = value.value_or("");
  }
  CUDAENV_TRY_ASSIGN(auto relative_path, object.string_at("relative_path"));
  if (!is_contained_path(relative_path))
    return object.error("has relative_path \"" + relative_path + "\", which leaves the mirror folder");
  file.relative_path = relative_path;
  CUDAENV_TRY_ASSIGN(auto sha256, object.string_at("sha256"));
  if (sha256.size() != 64) return object.error("has a sha256 that is not 64 hex digits");
  file.sha256 = sha256;
  CUDAENV_TRY_ASSIGN(auto size, object.at("size"));
  CUDAENV_TRY_ASSIGN(auto bytes, size.unsigned_integer());
  file.size = bytes;
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
  if (!file.component.empty()) out["component"] = file.component;
  if (!file.version.empty()) out["version"] = file.version;
  if (!file.platform.empty()) out["platform"] = file.platform;
  out["relative_path"] = file.relative_path;
  out["sha256"] = file.sha256;
  out["size"] = file.size;
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

}  // namespace cudaenv
