#include "core/setting.h"

namespace cudaenv {

std::string Setting::origin() const { return kind == OriginKind::fallback ? "default" : where; }

std::string Setting::as_written(std::string_view toml_key) const {
  switch (kind) {
    case OriginKind::argument: return where + " " + value;
    case OriginKind::environment: return where + "=" + value;
    case OriginKind::project_file:
    case OriginKind::global_file: return std::string(toml_key) + " = \"" + value + "\" in " + where;
    case OriginKind::fallback: break;
  }
  return "the default " + value;
}

std::string Setting::how_to_set(std::string_view replacement, std::string_view toml_key) const {
  std::string text(replacement);
  switch (kind) {
    case OriginKind::argument: return where + " " + text;
    case OriginKind::environment: return "set " + where + " to " + text;
    case OriginKind::project_file:
    case OriginKind::global_file: return "write " + std::string(toml_key) + " = \"" + text + "\" in " + where;
    case OriginKind::fallback: break;
  }
  return text;
}

Setting pick_setting(const SettingPlaces& places, const std::string& option_value, const EnvMap& env,
                     const std::optional<std::string>& toml_value, const std::filesystem::path& toml_path,
                     std::string default_value) {
  if (places.option && !option_value.empty()) return {option_value, OriginKind::argument, places.option};
  if (places.variable) {
    if (auto value = env_get(env, places.variable); value && !value->empty()) {
      return {*value, OriginKind::environment, places.variable};
    }
  }
  if (places.toml_key && toml_value) return {*toml_value, OriginKind::project_file, toml_path.string()};
  return {std::move(default_value), OriginKind::fallback, {}};
}

}  // namespace cudaenv
