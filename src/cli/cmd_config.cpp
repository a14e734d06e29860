// `cudaenv config`: every setting, its value and where it came from (as `ccache -p` shows),
// resolved by the same functions the commands that read them use.
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "core/settings_table.h"
#include "mirror/redist_source.h"
#include "torch/matrix.h"
#include "util/json_reader.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

using json = nlohmann::ordered_json;

struct NamedSetting {
  const char* key;
  Setting setting;
};

Setting version_setting(const Request& request) {
  switch (request.kind) {
    case OriginKind::environment: return {request.value, request.kind, kVersionSetting.variable};
    case OriginKind::project_file:
    case OriginKind::global_file: return {request.value, request.kind, request.file.string()};
    case OriginKind::argument:
    case OriginKind::fallback: break;
  }
  return {request.value, OriginKind::fallback, {}};
}

Setting root_setting(const Session& session) {
  if (env_get(session.env, kRootSetting.variable)) {
    return {session.layout.user_root.string(), OriginKind::environment, kRootSetting.variable};
  }
  return {session.layout.user_root.string(), OriginKind::fallback, {}};
}

Setting shared_root_setting(const Session& session) {
  const char* variable = shared_root_variable(session.env);
  if (!variable || !session.layout.shared_root) return {};
  return {session.layout.shared_root->string(), OriginKind::environment, variable};
}

Result<std::vector<NamedSetting>> all_settings(const Session& session) {
  CUDAENV_TRY_ASSIGN(auto project, load_project(session.fs, session.cwd));
  CUDAENV_TRY_ASSIGN(auto request, select_request(session.fs, session.env, session.layout, project));
  CUDAENV_TRY_ASSIGN(auto releases, load_release_catalog(session.data));
  CUDAENV_TRY_ASSIGN(auto profiles, load_profile_catalog(session.data));
  CUDAENV_TRY_ASSIGN(auto torch, load_torch_matrix(session.data));
  const CudaToml* toml = project ? &*project : nullptr;
  std::vector<NamedSetting> settings{
      {"version", version_setting(request)},
      {"root", root_setting(session)},
      {"shared_root", shared_root_setting(session)},
      {"source", source_setting({}, session.env, toml)},
      {"mirror", mirror_setting({}, session.env, releases.default_base)},
      {"platform", platform_setting({}, host_redist_platform())},
      {"profile", profile_setting({}, toml, profiles.default_profile)},
      {"jobs", jobs_setting(std::nullopt)},
      {"skip_manifest_pin", skip_manifest_pin_setting(false, session.env)},
      {"no_progress", no_progress_setting(false, session.env)},
      {"index_url", index_url_setting({}, session.env, session.fs)},
      {"text_timeout", env_setting(kTextTimeoutSetting, session.env)},
      {"torch_index", torch_index_setting(session.env, torch.index_url)},
      {"extension_wheels", env_setting(kExtensionWheelsSetting, session.env)},
      {"target", target_setting(session.env, project).value_or(Setting{})},
  };
  for (const EnvSettingRow* row : kEnvSettings) settings.push_back({row->key, env_setting(*row, session.env)});
  return settings;
}

std::string render_json(const std::vector<NamedSetting>& settings) {
  json out = json::object();
  for (const auto& [key, setting] : settings) out[key] = {{"value", setting.value}, {"origin", setting.origin()}};
  return json_text(out);
}

std::string render_text(const std::vector<NamedSetting>& settings) {
  std::string text;
  for (const auto& [key, setting] : settings) {
    text += "(" + terminal_safe(setting.origin()) + ") " + key + " = " + terminal_safe(setting.value) + "\n";
  }
  return text;
}

}  // namespace

CommandHandler configure_config(CLI::App& command) {
  auto json_output = std::make_shared<bool>(false);
  command.add_flag("--json", *json_output, "Print the settings as JSON");
  command.footer(
      "Each setting shows where its value came from: an environment variable, cuda.toml, or the default.\n"
      "A command's own option (install --mirror, --profile, ...) comes before all of them.");
  return [json_output](const Setup& setup) -> Result<int> {
    CUDAENV_TRY_ASSIGN(auto settings, all_settings(setup.session()));
    std::string text = *json_output ? render_json(settings) : render_text(settings);
    std::fputs(text.c_str(), stdout);
    return 0;
  };
}

}  // namespace cudaenv
