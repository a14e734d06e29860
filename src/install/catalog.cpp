#include "install/catalog.h"

#include <toml++/toml.h>

#include <algorithm>

#include "core/toml_reader.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

constexpr const char* kShippedFix = "reinstall cudaenv; this file ships with it";

Error data_error(const std::filesystem::path& path, const std::string& what) {
  return make_error(path.string() + ": " + what, kShippedFix);
}

Result<std::vector<std::string>> string_list(const TomlReader& reader, const toml::node* node, const std::string& what) {
  if (!node) return data_error(reader.path(), what + " must be an array of strings");
  return reader.expect_string_array(*node, what);
}

}  // namespace

const Release* ReleaseCatalog::find(std::string_view label) const {
  for (const Release& release : releases) {
    if (release.label == label) return &release;
  }
  return nullptr;
}

bool ReleaseCatalog::offered(const std::string& label) const {
  auto version = parse_version(label);
  if (!version || (oldest && *version < *oldest)) return false;
  return std::find(not_offered.begin(), not_offered.end(), label) == not_offered.end();
}

Result<std::string> ReleaseCatalog::resolve(std::string_view request) const {
  auto wanted = parse_version(request);
  if (!wanted) {
    return make_error("'" + std::string(request) + "' is not a CUDA version",
                      "give a version such as 12.1 or 12.1.1; `cudaenv list-remote` lists them", ErrorKind::usage);
  }
  if (wanted->parts.size() >= 3 && !offered(std::string(request))) {
    return make_error("CUDA " + std::string(request) + " is not offered: it is a stub or preview manifest, not a toolkit release",
                      "`cudaenv list-remote` lists the releases that can be installed");
  }
  for (const Release& release : releases) {
    if (version_matches(*wanted, release.version)) return release.label;
  }
  if (wanted->parts.size() >= 3) return std::string(request);
  std::vector<Version> known;
  for (const Release& release : releases) known.push_back(release.version);
  std::string hint = "`cudaenv list-remote` lists the releases cudaenv knows";
  if (auto nearest = nearest_version(*wanted, known))
    hint = "the nearest known release is " + releases[*nearest].label + "; " + hint;
  return make_error("no known CUDA release matches " + std::string(request), hint);
}

bool ProfileCatalog::excluded_from_full(std::string_view component) const {
  for (const std::string& pattern : full_exclude) {
    if (!pattern.empty() && pattern.back() == '*') {
      if (starts_with(component, std::string_view(pattern).substr(0, pattern.size() - 1))) return true;
    } else if (component == pattern) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> ProfileCatalog::alternatives(const std::string& name) const {
  for (const auto& [role, keys] : roles) {
    if (role == name || std::find(keys.begin(), keys.end(), name) != keys.end()) return keys;
  }
  return {name};
}

std::vector<std::string> ProfileCatalog::names(int major) const {
  std::vector<std::string> out;
  if (auto it = by_major.find(major); it != by_major.end()) {
    for (const auto& entry : it->second) out.push_back(entry.first);
  }
  out.push_back("full");
  return out;
}

Result<ReleaseCatalog> parse_release_catalog(std::string_view text, const std::filesystem::path& path) {
  TomlReader reader(path, text, kShippedFix);
  CUDAENV_TRY_ASSIGN(auto table, reader.parse());
  ReleaseCatalog catalog;
  catalog.default_base = (table)["default_base"].value_or(std::string{});
  if (catalog.default_base.empty()) return data_error(path, "default_base is missing");
  if (catalog.default_base.back() != '/') catalog.default_base += '/';
  if (auto oldest = (table)["oldest"].value<std::string>()) {
    catalog.oldest = parse_version(*oldest);
    if (!catalog.oldest) return data_error(path, "oldest must be a version such as \"11.4.2\"");
  }
  if (const toml::node* not_offered = (table)["not_offered"].node()) {
    CUDAENV_TRY_ASSIGN(auto labels, string_list(reader, not_offered, "not_offered"));
    catalog.not_offered = std::move(labels);
  }
  const toml::array* releases = (table)["release"].as_array();
  if (!releases) return data_error(path, "no [[release]] entries");
  for (const toml::node& node : *releases) {
    const toml::table* entry = node.as_table();
    auto label = entry ? (*entry)["label"].value<std::string>() : std::nullopt;
    auto version = label ? parse_version(*label) : std::nullopt;
    if (!version) return data_error(path, "every [[release]] needs a label such as \"12.1.1\"");
    Release release{*label, *version, (*entry)["date"].value<std::string>(), (*entry)["sha256"].value<std::string>()};
    catalog.releases.push_back(std::move(release));
  }
  std::sort(catalog.releases.begin(), catalog.releases.end(),
            [](const Release& a, const Release& b) { return a.version > b.version; });
  return catalog;
}

Result<ProfileCatalog> parse_profile_catalog(std::string_view text, const std::filesystem::path& path) {
  TomlReader reader(path, text, kShippedFix);
  CUDAENV_TRY_ASSIGN(auto table, reader.parse());
  ProfileCatalog catalog;
  catalog.default_profile = (table)["default_profile"].value_or(std::string("minimal"));
  const toml::table* majors = (table)["major"].as_table();
  if (!majors) return data_error(path, "no [major.N] tables");
  for (auto&& [key, node] : *majors) {
    auto major = parse_version(key.str());
    const toml::table* profiles = node.as_table();
    if (!major || major->parts.size() != 1 || !profiles)
      return data_error(path, "[major." + std::string(key.str()) + "] is not a major version table");
    for (auto&& [name, list] : *profiles) {
      CUDAENV_TRY_ASSIGN(auto components,
                         string_list(reader, &list, "major." + std::string(key.str()) + "." + std::string(name.str())));
      catalog.by_major[major->major()][std::string(name.str())] = std::move(components);
    }
  }
  if (const toml::table* roles = (table)["roles"].as_table()) {
    for (auto&& [role, list] : *roles) {
      CUDAENV_TRY_ASSIGN(auto keys, string_list(reader, &list, "roles." + std::string(role.str())));
      if (keys.empty()) return data_error(path, "roles." + std::string(role.str()) + " names no component");
      catalog.roles[std::string(role.str())] = std::move(keys);
    }
  }
  CUDAENV_TRY_ASSIGN(auto exclude, string_list(reader, (table)["full"]["exclude"].node(), "full.exclude"));
  catalog.full_exclude = std::move(exclude);
  return catalog;
}

Result<ReleaseCatalog> load_release_catalog(const DataFiles& data) {
  CUDAENV_TRY_ASSIGN(auto file, data.read("redist-releases.toml"));
  return parse_release_catalog(file.text, file.path);
}

Result<ReleaseCatalog> load_cudnn_catalog(const DataFiles& data) {
  CUDAENV_TRY_ASSIGN(auto file, data.read("cudnn-releases.toml"));
  return parse_release_catalog(file.text, file.path);
}

Result<ProfileCatalog> load_profile_catalog(const DataFiles& data) {
  CUDAENV_TRY_ASSIGN(auto file, data.read("redist-profiles.toml"));
  return parse_profile_catalog(file.text, file.path);
}

}  // namespace cudaenv
