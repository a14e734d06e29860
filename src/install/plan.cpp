#include "install/plan.h"

#include <algorithm>

#include "core/version.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

int major_of(const std::string& label) {
  auto version = parse_version(label);
  return version ? version->major() : 0;
}

std::vector<std::string> components_for_platform(const RedistManifest& manifest, const std::string& platform, int major) {
  std::vector<std::string> out;
  for (const RedistComponent& component : manifest.components) {
    if (archive_for(component, platform, major)) out.push_back(component.key);
  }
  return out;
}

// `alternatives` are the keys one profile entry or --component name can stand for.
Error missing_component(const RedistManifest& manifest, const std::string& label, const std::vector<std::string>& alternatives,
                        const std::string& platform, int major) {
  std::vector<std::string> available = components_for_platform(manifest, platform, major);
  std::string hint = "it has: " + join(available, ", ");
  if (auto guess = closest_word(alternatives.front(), available)) hint = "did you mean " + *guess + "? " + hint;
  for (const std::string& key : alternatives) {
    const RedistComponent* component = manifest.find(key);
    if (!component) continue;
    std::vector<std::string> platforms;
    for (const auto& entry : component->platforms) platforms.push_back(entry.first);
    for (const auto& entry : component->variants) platforms.push_back(entry.first);
    return make_error("component " + key + " of CUDA " + label + " has no archive for " + platform,
                      "it has archives for: " + join(platforms, ", ") + " (choose one with --platform)");
  }
  return make_error("CUDA " + label + " has no component " + join(alternatives, " or ") + " for " + platform, hint);
}

// The first of a role's components the manifest has for the platform.
std::optional<Archive> choose_component(const RedistManifest& manifest, const std::vector<std::string>& alternatives,
                                        const std::string& platform, int major) {
  for (const std::string& key : alternatives) {
    const RedistComponent* component = manifest.find(key);
    if (!component) continue;
    if (auto archive = archive_for(*component, platform, major)) return archive;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Archive> archive_for(const RedistComponent& component, const std::string& platform, int major) {
  if (auto it = component.platforms.find(platform); it != component.platforms.end()) return it->second;
  auto variants = component.variants.find(platform);
  if (variants == component.variants.end()) return std::nullopt;
  auto it = variants->second.find("cuda" + std::to_string(major));
  if (it == variants->second.end()) return std::nullopt;
  return it->second;
}

Status check_release_label(const std::string& label) {
  if (parse_version(label)) return ok_status();
  return make_error("'" + label + "' is not a CUDA release label", "a release label is a version such as 12.4.1");
}

Status check_profile(const ProfileCatalog& profiles, const std::string& label, const std::string& profile) {
  if (profile == "full") return ok_status();
  int major = major_of(label);
  auto by_major = profiles.by_major.find(major);
  if (by_major == profiles.by_major.end()) {
    return make_error("cudaenv has no component profiles for CUDA " + std::to_string(major) + ".x (" + label + ")",
                      "use --profile full, or name the components with --component");
  }
  if (!by_major->second.count(profile)) {
    return make_error("unknown profile '" + profile + "'", "choose one of: " + join(profiles.names(major), ", "),
                      ErrorKind::usage);
  }
  return ok_status();
}

Result<std::vector<std::string>> profile_components(const ProfileCatalog& profiles, const RedistManifest& manifest,
                                                    const std::string& label, const std::string& profile,
                                                    const std::string& platform) {
  CUDAENV_TRY(check_profile(profiles, label, profile));
  int major = major_of(label);
  if (profile != "full") return profiles.by_major.at(major).at(profile);
  std::vector<std::string> out;
  for (const std::string& key : components_for_platform(manifest, platform, major)) {
    if (!profiles.excluded_from_full(key)) out.push_back(key);
  }
  return out;
}

Result<std::vector<Archive>> plan_install(const RedistManifest& manifest, const ProfileCatalog& profiles,
                                          const PlanRequest& request) {
  CUDAENV_TRY_ASSIGN(auto wanted, profile_components(profiles, manifest, request.label, request.profile, request.platform));
  std::vector<std::string> keys = std::move(wanted);
  for (const std::string& extra : request.components) keys.push_back(extra);
  int major = major_of(request.label);
  std::vector<Archive> plan;
  for (const std::string& entry : keys) {
    std::vector<std::string> alternatives = profiles.alternatives(entry);
    auto chosen = choose_component(manifest, alternatives, request.platform, major);
    if (!chosen) return missing_component(manifest, request.label, alternatives, request.platform, major);
    bool seen = std::any_of(plan.begin(), plan.end(), [&](const Archive& p) { return p.name == chosen->name; });
    if (!seen) plan.push_back(std::move(*chosen));
  }
  return plan;
}

bool is_wheel(const std::filesystem::path& archive) { return archive.extension() == ".whl"; }

std::optional<std::string> redist_platform_for(const std::string& machine) {
  if (machine == "x86_64") return std::string("linux-x86_64");
  if (machine == "aarch64" || machine == "arm64") return std::string("linux-sbsa");
  return std::nullopt;
}

}  // namespace cudaenv
