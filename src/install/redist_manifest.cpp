#include "install/redist_manifest.h"

#include <algorithm>
#include <map>

#include "util/json_reader.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

constexpr const char* kManifestHint = "the manifest is damaged or not in NVIDIA's redist format; check the mirror";

bool is_sha256(const std::string& text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// Sizes are strings in every manifest seen; a plain number is accepted too.
Result<std::uint64_t> size_of(const JsonValue& archive) {
  CUDAENV_TRY_ASSIGN(auto size, archive.at("size"));
  if (!size.is_string()) return size.unsigned_integer();
  CUDAENV_TRY_ASSIGN(auto text, size.string());
  if (auto bytes = parse_decimal(text)) return *bytes;
  return size.error("\"" + text + "\" is not a size in bytes");
}

// An archive of `component`, its url the relative_path below the manifest's folder.
Result<Archive> parse_archive(const JsonValue& object, const RedistComponent& component) {
  Archive archive{.name = component.key, .version = component.version};
  CUDAENV_TRY_ASSIGN(auto relative_path, object.string_at("relative_path"));
  if (relative_path.empty()) return object.error("has an empty relative_path");
  archive.url = relative_path;
  CUDAENV_TRY_ASSIGN(auto sha, object.string_at("sha256"));
  std::transform(sha.begin(), sha.end(), sha.begin(), [](unsigned char c) { return std::tolower(c); });
  if (!is_sha256(sha)) return object.error("has sha256 \"" + sha + "\", which is not 64 hex digits");
  archive.sha256 = sha;
  CUDAENV_TRY_ASSIGN(auto size, size_of(object));
  if (size > kMaxArchiveBytes) {
    return make_error(object
                          .error("declares an archive of " + std::to_string(size) + " bytes, more than the " +
                                 std::to_string(kMaxArchiveBytes >> 30) + " GiB cudaenv accepts")
                          .message,
                      "the manifest is broken or hostile: do not install or mirror from it");
  }
  archive.size = size;
  return archive;
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
         c == '+' || c == '~';
}

// A folder or file name: name characters only, not hidden, not "." or "..".
bool is_plain_name(std::string_view name) {
  return !name.empty() && name.front() != '.' && std::all_of(name.begin(), name.end(), is_name_char);
}

Error layout_error(const std::string& source, const std::string& what) {
  return make_error(source + ": " + what,
                    "the manifest is broken or hostile, not the network: cudaenv refuses it; do not install or "
                    "mirror from it, and tell whoever serves it");
}

// Why `relative_path` may not be written for `component`, or "" when it may.
std::string layout_problem(const std::string& component, const std::string& relative_path) {
  if (!is_contained_path(relative_path)) return "is not a clean relative path";
  std::vector<std::string> parts = split(relative_path, '/');
  if (!std::all_of(parts.begin(), parts.end(), [](const std::string& p) { return is_plain_name(p); })) {
    return "has a hidden part or a character outside letters, digits and ._+~-";
  }
  if (parts.size() < 2 || parts.front() != component) return "lies outside the component's folder " + component + "/";
  const std::string& name = parts.back();
  if (starts_with(name, "redistrib_")) return "names a manifest";
  if (name == "cudaenv-mirror.json") return "names the mirror index";
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".part") == 0) return "names a partial download";
  return "";
}

struct Placed {
  std::string where;
  const Archive* archive;
};

// Checks every archive's path and that no two archives share a file name: install keeps
// archives by file name, and a mirror must never hold two files in one place.
Status check_layout(const RedistManifest& manifest, const std::string& source) {
  std::map<std::string, Placed> by_name;
  auto check = [&](const RedistComponent& component, const std::string& where, const Archive& archive) -> Status {
    std::string problem = layout_problem(component.key, archive.url);
    if (!problem.empty()) return layout_error(source, where + ": relative_path '" + archive.url + "' " + problem);
    std::string name = archive.url.substr(archive.url.rfind('/') + 1);
    auto [it, added] = by_name.emplace(name, Placed{where, &archive});
    bool same_file = it->second.archive->url == archive.url && it->second.archive->sha256 == archive.sha256 &&
                     it->second.archive->size == archive.size;
    if (!added && !same_file) {
      return layout_error(source, where + " and " + it->second.where + " both name a file " + name);
    }
    return ok_status();
  };
  for (const RedistComponent& component : manifest.components) {
    if (!is_plain_name(component.key)) {
      return layout_error(source, "component name '" + component.key + "' is not a plain folder name");
    }
    for (const auto& [platform, archive] : component.platforms) {
      CUDAENV_TRY(check(component, component.key + "." + platform, archive));
    }
    for (const auto& [platform, variants] : component.variants) {
      for (const auto& [variant, archive] : variants) {
        CUDAENV_TRY(check(component, component.key + "." + platform + "." + variant, archive));
      }
    }
  }
  return ok_status();
}

Result<RedistComponent> parse_component(const std::string& key, const JsonValue& object) {
  RedistComponent component;
  component.key = key;
  CUDAENV_TRY_ASSIGN(auto name, object.optional_string("name"));
  component.name = name.value_or(key);
  CUDAENV_TRY_ASSIGN(auto version, object.optional_string("version"));
  component.version = version.value_or("");
  CUDAENV_TRY_ASSIGN(auto members, object.members());
  for (const auto& [platform, value] : members) {
    if (!value.is_object()) continue;  // name, license, version, cuda_variant ...
    CUDAENV_TRY_ASSIGN(auto relative_path, value.find("relative_path"));
    if (relative_path) {
      CUDAENV_TRY_ASSIGN(auto archive, parse_archive(value, component));
      component.platforms.emplace(platform, std::move(archive));
      continue;
    }
    CUDAENV_TRY_ASSIGN(auto variants, value.members());
    for (const auto& [variant, nested] : variants) {
      if (!nested.is_object()) continue;
      CUDAENV_TRY_ASSIGN(auto archive, parse_archive(nested, component));
      component.variants[platform].emplace(variant, std::move(archive));
    }
  }
  return component;
}

}  // namespace

const RedistComponent* RedistManifest::find(std::string_view key) const {
  for (const RedistComponent& component : components) {
    if (component.key == key) return &component;
  }
  return nullptr;
}

Result<RedistManifest> parse_redist_manifest(std::string_view text, const std::string& source) {
  CUDAENV_TRY_ASSIGN(auto root, JsonValue::parse(text, source, kManifestHint));
  if (!root.is_object()) {
    return make_error(source + " is not a redist manifest (not a JSON object)",
                      "check that the mirror serves NVIDIA's redistrib_<label>.json files");
  }
  RedistManifest manifest;
  for (auto [key, field] : {std::pair{"release_date", &manifest.release_date},
                            {"release_label", &manifest.release_label},
                            {"release_product", &manifest.release_product}}) {
    CUDAENV_TRY_ASSIGN(auto value, root.optional_string(key));
    *field = value;
  }
  CUDAENV_TRY_ASSIGN(auto members, root.members());
  for (const auto& [key, value] : members) {
    // Release keys and anything else that is not an object are not components.
    if (!value.is_object()) continue;
    CUDAENV_TRY_ASSIGN(auto component, parse_component(key, value));
    manifest.components.push_back(std::move(component));
  }
  std::sort(manifest.components.begin(), manifest.components.end(),
            [](const RedistComponent& a, const RedistComponent& b) { return a.key < b.key; });
  CUDAENV_TRY(check_layout(manifest, source));
  return manifest;
}

bool is_contained_path(std::string_view relative_path) {
  if (relative_path.empty() || relative_path.front() == '/') return false;
  for (const std::string& part : split(relative_path, '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

}  // namespace cudaenv
