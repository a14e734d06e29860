#pragma once
// Every CUDAENV_* variable, one row each: the code names a variable only through its row, and a
// setting is resolved by the functions here (or, for the root, the shared root and the version,
// by core/layout.cpp and core/selection.cpp, which read their rows) at the command's edge and
// passed down as a value. `cudaenv config` lists every setting with its origin: the rows of
// kEnvSettings (the settings only the environment gives), and the others through the functions
// that pick them. A new environment-only setting is one row here and one line in kEnvSettings.

#include <optional>
#include <string>

#include "core/cuda_toml.h"
#include "core/setting.h"
#include "util/environment.h"

namespace cudaenv {

struct EnvSettingRow {
  const char* key;       // the name `cudaenv config` shows: "cudnn_mirror"
  const char* variable;  // "CUDAENV_CUDNN_MIRROR"
  const char* fallback;  // the value when the variable is unset or empty ("" for none)
};

// Read by core/selection.cpp (select_request) and core/layout.cpp (layout_from_env), whose
// results `config` lists with these origins; the replayed shim hashes them (replay/record.c).
inline constexpr EnvSettingRow kVersionSetting{"version", "CUDAENV_VERSION", "system"};
inline constexpr EnvSettingRow kRootSetting{"root", "CUDAENV_ROOT", ""};
inline constexpr EnvSettingRow kSharedRootSetting{"shared_root", "CUDAENV_SHARED_ROOT", ""};
// The shared root's old name, still read where CUDAENV_SHARED_ROOT is not set.
inline constexpr EnvSettingRow kSystemRootSetting{"shared_root", "CUDAENV_SYSTEM_ROOT", ""};
inline constexpr EnvSettingRow kTargetSetting{"target", "CUDAENV_TARGET", ""};

// Settings an option or cuda.toml may also give, picked by the functions below, which say their
// defaults.
inline constexpr EnvSettingRow kSourceSetting{"source", "CUDAENV_SOURCE", ""};
inline constexpr EnvSettingRow kMirrorSetting{"mirror", "CUDAENV_MIRROR", ""};
inline constexpr EnvSettingRow kSkipManifestPinSetting{"skip_manifest_pin", "CUDAENV_SKIP_MANIFEST_PIN", "0"};
inline constexpr EnvSettingRow kNoProgressSetting{"no_progress", "CUDAENV_NO_PROGRESS", "0"};
inline constexpr EnvSettingRow kTorchIndexSetting{"torch_index", "CUDAENV_TORCH_INDEX", ""};

// The settings only the environment gives.
inline constexpr EnvSettingRow kCudnnMirrorSetting{"cudnn_mirror", "CUDAENV_CUDNN_MIRROR", ""};
inline constexpr EnvSettingRow kDownloadTimeoutSetting{"download_timeout", "CUDAENV_DOWNLOAD_TIMEOUT",
                                                       "600 s + 1 s per 256 KiB of the file"};
inline constexpr EnvSettingRow kDriverVersionSetting{"driver_version", "CUDAENV_DRIVER_VERSION", ""};
// Read by core/data_dir.cpp.
inline constexpr EnvSettingRow kManifestsDirSetting{"manifests_dir", "CUDAENV_MANIFESTS_DIR", ""};
inline constexpr EnvSettingRow kQuietSetting{"quiet", "CUDAENV_QUIET", "0"};
inline constexpr EnvSettingRow kScanDirsSetting{"scan_dirs", "CUDAENV_SCAN_DIRS", "/usr/local"};
inline constexpr EnvSettingRow kTorchOfflineSetting{"torch_offline", "CUDAENV_TORCH_OFFLINE", "0"};
// The seconds a text download (manifest, listing, index page) may take, all its tries together.
inline constexpr EnvSettingRow kTextTimeoutSetting{"text_timeout", "CUDAENV_TEXT_TIMEOUT", "60"};
// The base URL of an air-gapped mirror of the prebuilt extension wheels.
inline constexpr EnvSettingRow kExtensionWheelsSetting{"extension_wheels", "CUDAENV_EXTENSION_WHEELS", ""};

inline constexpr const EnvSettingRow* kEnvSettings[] = {
    &kCudnnMirrorSetting, &kDownloadTimeoutSetting, &kDriverVersionSetting, &kManifestsDirSetting,
    &kQuietSetting,       &kScanDirsSetting,        &kTorchOfflineSetting,
};

// The variable's value where it is set and not empty, else the row's fallback; with its origin.
Setting env_setting(const EnvSettingRow& row, const EnvMap& env);

// Whether a yes/no setting is on: set, and neither empty nor "0".
bool is_on(const Setting& setting);

// The settings of fetching, each with where it came from.
// --mirror, else CUDAENV_MIRROR, else `default_base` (NVIDIA's folder).
Setting mirror_setting(const std::string& option, const EnvMap& env, const std::string& default_base);
// --platform, else `host_platform` (this machine's redist platform; empty where NVIDIA has none).
Setting platform_setting(const std::string& option, const std::string& host_platform);
// --skip-manifest-pin, else CUDAENV_SKIP_MANIFEST_PIN: "1" skips the pin.
Setting skip_manifest_pin_setting(bool option, const EnvMap& env);
// --profile, else cuda.toml's [cuda] profile, else `default_profile` (the catalog's).
Setting profile_setting(const std::string& option, const CudaToml* project, const std::string& default_profile);
// How many archives are downloaded at once unless --jobs says otherwise (install, lock, mirror sync).
inline constexpr int kDefaultJobs = 4;
// --jobs, else kDefaultJobs.
Setting jobs_setting(std::optional<int> option);
// --source, else CUDAENV_SOURCE, else the nearest cuda.toml's [cuda] source, else "redist".
Setting source_setting(const std::string& option, const EnvMap& env, const CudaToml* project);
// --no-progress, else CUDAENV_NO_PROGRESS: "1" turns the progress bars off.
Setting no_progress_setting(bool option, const EnvMap& env);
// CUDAENV_TORCH_INDEX, else `shipped_index` (the shipped table's).
Setting torch_index_setting(const EnvMap& env, const std::string& shipped_index);

// The deadlines of downloads (install/downloader.h), as set: each is checked where a download
// uses it, so a bad value fails only a command that downloads. A default-made one is the
// defaults.
struct FetchTimeouts {
  Setting text{kTextTimeoutSetting.fallback, OriginKind::fallback, {}};          // a text download, all its tries together
  Setting transfer{kDownloadTimeoutSetting.fallback, OriginKind::fallback, {}};  // one try at one archive
};
FetchTimeouts fetch_timeouts(const EnvMap& env);

}  // namespace cudaenv
