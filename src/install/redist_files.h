#pragma once
// The redist source's part of an install: fetch redistrib_<label>.json, check it against its pin
// and plan one archive per component (install/plan.h).

#include <string>

#include "install/catalog.h"
#include "install/installer.h"
#include "install/progress.h"

namespace cudaenv {

struct RedistFolder {
  std::string base_url;  // ends in '/'; http(s):// or file://
  bool skip_manifest_pin = false;
};

PlanFiles plan_redist_files(const ReleaseCatalog& releases, const ProfileCatalog& profiles, RedistFolder folder,
                            ProgressReporter& progress);

}  // namespace cudaenv
