#include "core/settings_table.h"

#include "core/install_source.h"

namespace cudaenv {

Setting env_setting(const EnvSettingRow& row, const EnvMap& env) {
  return pick_setting({nullptr, row.variable}, {}, env, std::nullopt, {}, row.fallback);
}

bool is_on(const Setting& setting) { return !setting.value.empty() && setting.value != "0"; }

Setting mirror_setting(const std::string& option, const EnvMap& env, const std::string& default_base) {
  return pick_setting({"--mirror", kMirrorSetting.variable}, option, env, std::nullopt, {}, default_base);
}

Setting platform_setting(const std::string& option, const std::string& host_platform) {
  return pick_setting({"--platform"}, option, {}, std::nullopt, {}, host_platform);
}

Setting skip_manifest_pin_setting(bool option, const EnvMap& env) {
  return pick_setting({"--skip-manifest-pin", kSkipManifestPinSetting.variable}, option ? "1" : "", env, std::nullopt, {},
                      kSkipManifestPinSetting.fallback);
}

Setting profile_setting(const std::string& option, const CudaToml* project, const std::string& default_profile) {
  return pick_setting({"--profile", nullptr, "profile"}, option, {}, project ? project->profile : std::nullopt,
                      project ? project->path : std::filesystem::path(), default_profile);
}

Setting jobs_setting(std::optional<int> option) {
  return pick_setting({"--jobs"}, option ? std::to_string(*option) : "", {}, std::nullopt, {}, std::to_string(kDefaultJobs));
}

Setting source_setting(const std::string& option, const EnvMap& env, const CudaToml* project) {
  return pick_setting({"--source", kSourceSetting.variable, "source"}, option, env, project ? project->source : std::nullopt,
                      project ? project->path : std::filesystem::path(), std::string(source_name(InstallSource::redist)));
}

Setting no_progress_setting(bool option, const EnvMap& env) {
  return pick_setting({"--no-progress", kNoProgressSetting.variable}, option ? "1" : "", env, std::nullopt, {},
                      kNoProgressSetting.fallback);
}

Setting torch_index_setting(const EnvMap& env, const std::string& shipped_index) {
  return pick_setting({nullptr, kTorchIndexSetting.variable}, {}, env, std::nullopt, {}, shipped_index);
}

FetchTimeouts fetch_timeouts(const EnvMap& env) {
  return {env_setting(kTextTimeoutSetting, env), env_setting(kDownloadTimeoutSetting, env)};
}

}  // namespace cudaenv
