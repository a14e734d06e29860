#pragma once
// What `cudaenv torch --with` and doctor's fixes for extensions need from the machine: whether
// the servers have the prebuilt wheels (the cache, and cudaenv-fetch for what it lacks), the
// mirror setting, and what a source build here may use (memory, cores, installed toolkits).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/session.h"
#include "core/setting.h"
#include "extensions/advice.h"

namespace cudaenv {

// CUDAENV_EXTENSION_WHEELS: the base URL of an air-gapped mirror of the prebuilt wheels.
Setting extension_wheels_setting(const Session& session);
// Its value, checked: an http(s) or file:// URL, or empty where it is not set.
Result<std::string> extension_mirror(const Session& session);

class CachedWheelLookup : public WheelLookup {
 public:
  // `refresh`: ask the servers again whatever the cache's age.
  CachedWheelLookup(const Session& session, bool refresh) : session_(session), refresh_(refresh) {}
  WheelAnswers check(const std::vector<std::string>& urls) const override;

 private:
  const Session& session_;
  bool refresh_;
};

// Whether a toolkit of `cuda`'s major.minor is installed or registered.
bool toolkit_installed(const Session& session, const Version& cuda);

}  // namespace cudaenv
