#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/settings_table.h"

using namespace cudaenv;

TEST_CASE("settings: every CUDAENV_ variable has one row, and config lists each environment-only one once", "[settings]") {
  const EnvSettingRow* rows[] = {&kVersionSetting,       &kRootSetting,         &kSharedRootSetting,     &kSystemRootSetting,
                                 &kTargetSetting,        &kSourceSetting,       &kMirrorSetting,         &kSkipManifestPinSetting,
                                 &kNoProgressSetting,    &kTorchIndexSetting,   &kCudnnMirrorSetting,    &kDownloadTimeoutSetting,
                                 &kDriverVersionSetting, &kManifestsDirSetting, &kQuietSetting,          &kScanDirsSetting,
                                 &kTorchOfflineSetting,  &kTextTimeoutSetting,  &kExtensionWheelsSetting};
  std::set<std::string> variables;
  for (const EnvSettingRow* row : rows) {
    CHECK(std::string(row->variable).rfind("CUDAENV_", 0) == 0);
    CHECK(variables.insert(row->variable).second);
  }
  std::set<std::string> keys;
  for (const EnvSettingRow* row : kEnvSettings) CHECK(keys.insert(row->key).second);
}

TEST_CASE("settings: an environment-only setting is its variable when set and not empty, else the fallback", "[settings]") {
  Setting unset = env_setting(kScanDirsSetting, {});
  CHECK(unset.value == "/usr/local");
  CHECK(unset.origin() == "default");
  CHECK(env_setting(kScanDirsSetting, {{"CUDAENV_SCAN_DIRS", ""}}).kind == OriginKind::fallback);
  Setting set = env_setting(kScanDirsSetting, {{"CUDAENV_SCAN_DIRS", "/opt:/srv"}});
  CHECK(set.value == "/opt:/srv");
  CHECK(set.origin() == "CUDAENV_SCAN_DIRS");
  CHECK_FALSE(is_on(env_setting(kQuietSetting, {})));
  CHECK_FALSE(is_on(env_setting(kQuietSetting, {{"CUDAENV_QUIET", "0"}})));
  CHECK(is_on(env_setting(kQuietSetting, {{"CUDAENV_QUIET", "1"}})));
}

TEST_CASE("settings: an option comes before the variable, the variable before cuda.toml, cuda.toml before the default",
          "[settings]") {
  EnvMap env{{"CUDAENV_MIRROR", "https://env.example/"}, {"CUDAENV_SOURCE", "pypi"}};
  CHECK(mirror_setting("https://option.example/", env, "https://nvidia/").as_written() == "--mirror https://option.example/");
  CHECK(mirror_setting("", env, "https://nvidia/").as_written() == "CUDAENV_MIRROR=https://env.example/");
  CHECK(mirror_setting("", {}, "https://nvidia/").kind == OriginKind::fallback);
  CHECK(mirror_setting("", {}, "https://nvidia/").value == "https://nvidia/");

  CudaToml project;
  project.path = "/p/cuda.toml";
  project.source = "redist";
  project.profile = "torch";
  CHECK(source_setting("", env, &project).origin() == "CUDAENV_SOURCE");
  CHECK(source_setting("", {}, &project).as_written("source") == "source = \"redist\" in /p/cuda.toml");
  CHECK(source_setting("", {}, nullptr).value == "redist");
  CHECK(source_setting("pypi", {}, &project).origin() == "--source");
  CHECK(profile_setting("", &project, "minimal").value == "torch");
  CHECK(profile_setting("full", &project, "minimal").value == "full");
  CHECK(profile_setting("", nullptr, "minimal").origin() == "default");
  CHECK(platform_setting("", "linux-sbsa").value == "linux-sbsa");
  CHECK(platform_setting("linux-x86_64", "linux-sbsa").origin() == "--platform");
  CHECK(jobs_setting(std::nullopt).value == std::to_string(kDefaultJobs));
  CHECK(jobs_setting(8).as_written() == "--jobs 8");
}

TEST_CASE("settings: yes/no options and their variables", "[settings]") {
  CHECK_FALSE(is_on(skip_manifest_pin_setting(false, {})));
  CHECK(is_on(skip_manifest_pin_setting(true, {})));
  Setting from_env = skip_manifest_pin_setting(false, {{"CUDAENV_SKIP_MANIFEST_PIN", "1"}});
  CHECK(is_on(from_env));
  CHECK(from_env.origin() == "CUDAENV_SKIP_MANIFEST_PIN");
  CHECK(is_on(no_progress_setting(false, {{"CUDAENV_NO_PROGRESS", "1"}})));
  CHECK(no_progress_setting(true, {}).origin() == "--no-progress");
}

TEST_CASE("settings: the download deadlines as set, the defaults where not", "[settings]") {
  FetchTimeouts defaults;
  CHECK(defaults.text.value == "60");
  CHECK(defaults.text.kind == OriginKind::fallback);
  CHECK(defaults.transfer.kind == OriginKind::fallback);
  FetchTimeouts unset = fetch_timeouts({});
  CHECK(unset.text.value == defaults.text.value);
  CHECK(unset.transfer.value == defaults.transfer.value);
  FetchTimeouts set = fetch_timeouts({{"CUDAENV_TEXT_TIMEOUT", "300"}, {"CUDAENV_DOWNLOAD_TIMEOUT", "90"}});
  CHECK(set.text.as_written() == "CUDAENV_TEXT_TIMEOUT=300");
  CHECK(set.transfer.as_written() == "CUDAENV_DOWNLOAD_TIMEOUT=90");
}

TEST_CASE("settings: CUDAENV_TORCH_INDEX, else the shipped table's index", "[settings]") {
  CHECK(torch_index_setting({}, "https://download.pytorch.org/whl").origin() == "default");
  Setting proxy = torch_index_setting({{"CUDAENV_TORCH_INDEX", "https://proxy/whl"}}, "https://download.pytorch.org/whl");
  CHECK(proxy.value == "https://proxy/whl");
  CHECK(proxy.origin() == "CUDAENV_TORCH_INDEX");
}
