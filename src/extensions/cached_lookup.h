#pragma once
// What `cudaenv torch --with` and doctor's fixes for extensions need from the machine: whether
// the servers have the prebuilt wheels (the cache, and cudaenv-fetch for what it lacks), the
// mirror setting, and whether a toolkit for a source build is here.

#include <filesystem>
#include <string>
#include <vector>

#include "core/setting.h"
#include "core/toolkits.h"
#include "extensions/advice.h"
#include "util/environment.h"
#include "util/file_system.h"

namespace cudaenv {

// CUDAENV_EXTENSION_WHEELS's value (the base URL of an air-gapped mirror of the prebuilt
// wheels), checked: an http(s) or file:// URL, or empty where it is not set.
Result<std::string> extension_mirror(const Setting& extension_wheels);

class CachedWheelLookup : public WheelLookup {
 public:
  // `cache_dir`: where the answers are kept (Layout::cache_dir); `env`: cudaenv-fetch's
  // environment; `refresh`: ask the servers again whatever the cache's age.
  CachedWheelLookup(const FileSystemView& fs, std::filesystem::path cache_dir, const EnvMap& env, bool refresh)
      : fs_(fs), cache_dir_(std::move(cache_dir)), env_(env), refresh_(refresh) {}
  WheelAnswers check(const std::vector<std::string>& urls) const override;

 private:
  const FileSystemView& fs_;
  std::filesystem::path cache_dir_;
  const EnvMap& env_;
  bool refresh_;
};

// Whether a toolkit of `cuda`'s major.minor is among `toolkits` (installed or registered).
bool toolkit_installed(const std::vector<Toolkit>& toolkits, const Version& cuda);

}  // namespace cudaenv
