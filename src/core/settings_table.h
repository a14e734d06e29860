#pragma once
// The settings that only the environment gives (no option, no cuda.toml key), one row each:
// the code reads one through env_setting() and its row (two exceptions say so at their rows),
// and `cudaenv config` lists every row of kEnvSettings with its origin. A new such setting is
// one row here and one line in kEnvSettings. The settings an option or cuda.toml may also give
// are picked by their own functions (cli/redist_source.h), which `config` lists too.

#include "core/setting.h"
#include "util/environment.h"

namespace cudaenv {

struct EnvSettingRow {
  const char* key;       // the name `cudaenv config` shows: "cudnn_mirror"
  const char* variable;  // "CUDAENV_CUDNN_MIRROR"
  const char* fallback;  // the value when the variable is unset or empty ("" for none)
};

inline constexpr EnvSettingRow kCudnnMirrorSetting{"cudnn_mirror", "CUDAENV_CUDNN_MIRROR", ""};
// Read by the downloader itself (install/downloader.cpp); the fallback says what it does then.
inline constexpr EnvSettingRow kDownloadTimeoutSetting{"download_timeout", "CUDAENV_DOWNLOAD_TIMEOUT",
                                                       "600 s + 1 s per 256 KiB of the file"};
inline constexpr EnvSettingRow kDriverVersionSetting{"driver_version", "CUDAENV_DRIVER_VERSION", ""};
// Read by util/data_dir.cpp, below this layer, by the same rule (set and not empty).
inline constexpr EnvSettingRow kManifestsDirSetting{"manifests_dir", "CUDAENV_MANIFESTS_DIR", ""};
inline constexpr EnvSettingRow kQuietSetting{"quiet", "CUDAENV_QUIET", "0"};
inline constexpr EnvSettingRow kScanDirsSetting{"scan_dirs", "CUDAENV_SCAN_DIRS", "/usr/local"};
inline constexpr EnvSettingRow kTorchOfflineSetting{"torch_offline", "CUDAENV_TORCH_OFFLINE", "0"};

inline constexpr const EnvSettingRow* kEnvSettings[] = {
    &kCudnnMirrorSetting, &kDownloadTimeoutSetting, &kDriverVersionSetting, &kManifestsDirSetting,
    &kQuietSetting,       &kScanDirsSetting,        &kTorchOfflineSetting,
};

// The variable's value where it is set and not empty, else the row's fallback; with its origin.
Setting env_setting(const EnvSettingRow& row, const EnvMap& env);

// Whether a yes/no setting is on: set, and neither empty nor "0".
bool is_on(const Setting& setting);

}  // namespace cudaenv
