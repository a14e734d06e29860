#include "install/redist_manifest.h"

#include <algorithm>

#include "util/json_reader.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

constexpr const char* kManifestHint = "the manifest is damaged or not in NVIDIA's redist format; check the mirror";

bool is_sha256(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// Sizes are strings in every manifest seen; a plain number is accepted too.
Result<std::uint64_t> size_of(const JsonValue& artifact) {
  auto size = artifact.at("size");
  if (!size) return size.take_error();
  if (!size->is_string()) return size->unsigned_integer();
  auto text = size->string();
  if (!text) return text.take_error();
  if (auto bytes = parse_decimal(*text)) return *bytes;
  return size->error("\"" + *text + "\" is not a size in bytes");
}

Result<RedistArtifact> parse_artifact(const JsonValue& object) {
  RedistArtifact artifact;
  auto relative_path = object.string_at("relative_path");
  if (!relative_path) return relative_path.take_error();
  if (relative_path->empty()) return object.error("has an empty relative_path");
  artifact.relative_path = *relative_path;
  auto sha = object.string_at("sha256");
  if (!sha) return sha.take_error();
  std::transform(sha->begin(), sha->end(), sha->begin(), [](unsigned char c) { return std::tolower(c); });
  if (!is_sha256(*sha)) return object.error("has sha256 \"" + *sha + "\", which is not 64 hex digits");
  artifact.sha256 = *sha;
  auto size = size_of(object);
  if (!size) return size.take_error();
  artifact.size = *size;
  return artifact;
}

Result<RedistComponent> parse_component(const std::string& key, const JsonValue& object) {
  RedistComponent component;
  component.key = key;
  auto name = object.optional_string("name");
  if (!name) return name.take_error();
  component.name = name->value_or(key);
  auto version = object.optional_string("version");
  if (!version) return version.take_error();
  component.version = version->value_or("");
  auto members = object.members();
  if (!members) return members.take_error();
  for (const auto& [platform, value] : *members) {
    if (!value.is_object()) continue;  // name, license, version, cuda_variant ...
    auto relative_path = value.find("relative_path");
    if (!relative_path) return relative_path.take_error();
    if (*relative_path) {
      auto artifact = parse_artifact(value);
      if (!artifact) return artifact.take_error();
      component.platforms.emplace(platform, std::move(*artifact));
      continue;
    }
    auto variants = value.members();
    if (!variants) return variants.take_error();
    for (const auto& [variant, nested] : *variants) {
      if (!nested.is_object()) continue;
      auto artifact = parse_artifact(nested);
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
  auto root = JsonValue::parse(text, source, kManifestHint);
  if (!root) return root.take_error();
  if (!root->is_object()) {
    return make_error(source + " is not a redist manifest (not a JSON object)",
                      "check that the mirror serves NVIDIA's redistrib_<label>.json files");
  }
  RedistManifest manifest;
  for (auto [key, field] : {std::pair{"release_date", &manifest.release_date},
                            {"release_label", &manifest.release_label}, {"release_product", &manifest.release_product}}) {
    auto value = root->optional_string(key);
    if (!value) return value.take_error();
    *field = *value;
  }
  auto members = root->members();
  if (!members) return members.take_error();
  for (const auto& [key, value] : *members) {
    // Release keys and anything else that is not an object are not components.
    if (!value.is_object()) continue;
    auto component = parse_component(key, value);
    if (!component) return component.take_error();
    manifest.components.push_back(std::move(*component));
  }
  std::sort(manifest.components.begin(), manifest.components.end(),
            [](const RedistComponent& a, const RedistComponent& b) { return a.key < b.key; });
  return manifest;
}

}  // namespace cudaenv
