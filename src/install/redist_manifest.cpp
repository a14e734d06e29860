#include "install/redist_manifest.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

namespace cudaenv {

namespace {

using nlohmann::json;

std::optional<std::string> string_member(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

bool is_sha256(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// Sizes are strings in every manifest seen; a plain number is accepted too.
std::optional<std::uint64_t> size_member(const json& object) {
  auto it = object.find("size");
  if (it == object.end()) return std::nullopt;
  if (it->is_number_unsigned()) return it->get<std::uint64_t>();
  if (!it->is_string()) return std::nullopt;
  const std::string& text = it->get_ref<const std::string&>();
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

Result<RedistArtifact> parse_artifact(const json& object, const std::string& where) {
  RedistArtifact artifact;
  artifact.relative_path = string_member(object, "relative_path").value_or("");
  auto sha = string_member(object, "sha256");
  auto size = size_member(object);
  if (artifact.relative_path.empty() || !sha || !size) {
    return make_error(where + ": an archive entry needs relative_path, sha256 and size",
                      "the manifest is damaged or not in NVIDIA's redist format; check the mirror");
  }
  std::transform(sha->begin(), sha->end(), sha->begin(), [](unsigned char c) { return std::tolower(c); });
  if (!is_sha256(*sha)) return make_error(where + ": sha256 \"" + *sha + "\" is not 64 hex digits");
  artifact.sha256 = *sha;
  artifact.size = *size;
  return artifact;
}

Result<RedistComponent> parse_component(const std::string& key, const json& object, const std::string& source) {
  RedistComponent component;
  component.key = key;
  component.name = string_member(object, "name").value_or(key);
  component.version = string_member(object, "version").value_or("");
  for (const auto& [platform, value] : object.items()) {
    if (!value.is_object()) continue;  // name, license, version, cuda_variant ...
    std::string where = source + ": " + key + "." + platform;
    if (value.contains("relative_path")) {
      auto artifact = parse_artifact(value, where);
      if (!artifact) return artifact.take_error();
      component.platforms.emplace(platform, std::move(*artifact));
      continue;
    }
    for (const auto& [variant, nested] : value.items()) {
      if (!nested.is_object()) continue;
      auto artifact = parse_artifact(nested, where + "." + variant);
      if (!artifact) return artifact.take_error();
      component.variants[platform].emplace(variant, std::move(*artifact));
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
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!root.is_object()) {
    return make_error(source + " is not a redist manifest (not a JSON object)",
                      "check that the mirror serves NVIDIA's redistrib_<label>.json files");
  }
  RedistManifest manifest;
  manifest.release_date = string_member(root, "release_date");
  manifest.release_label = string_member(root, "release_label");
  manifest.release_product = string_member(root, "release_product");
  for (const auto& [key, value] : root.items()) {
    // Release keys and anything else that is not an object are not components.
    if (!value.is_object()) continue;
    auto component = parse_component(key, value, source);
    if (!component) return component.take_error();
    manifest.components.push_back(std::move(*component));
  }
  std::sort(manifest.components.begin(), manifest.components.end(),
            [](const RedistComponent& a, const RedistComponent& b) { return a.key < b.key; });
  return manifest;
}

}  // namespace cudaenv
