#pragma once
// What an install fetches, pure: the plan whichever source made it (a plain value), and the
// redist source's planning of one release's archives from its manifest and the profiles.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/install_source.h"
#include "core/settings_table.h"
#include "install/archive.h"
#include "install/catalog.h"
#include "install/redist_manifest.h"
#include "util/result.h"

namespace cudaenv {

struct InstallPlan {
  std::string label;  // "13.2.2"
  InstallSource source = InstallSource::redist;
  std::string origin;  // the redist folder (ending in '/') or the package index root
  // What fixed the component versions: redistrib_<label>.json, or the cuda-toolkit metapackage wheel.
  std::string pinned_by_url;
  std::string pinned_by_sha256;
  std::vector<Archive> files;  // each url absolute
  bool operator==(const InstallPlan&) const = default;
};

// Whether an archive is a wheel (a zip laid out as NVIDIA's CUDA wheels), else a redist tar: by
// its file name, the one place this is decided.
bool is_wheel(const std::filesystem::path& archive);

struct InstallRequest {
  std::string label;                    // a full release label, already resolved
  std::string profile;                  // minimal | torch | full
  std::vector<std::string> components;  // extras
  std::string platform;
  int jobs = kDefaultJobs;
  bool force = false;           // reinstall even when present
  bool keep_downloads = false;  // leave the downloads in the cache
  // Libraries of the toolkit ("cudnn", "nccl@2.28"): the source's PlanFiles adds their files.
  std::vector<std::string> libraries;
};

// A source's part of an install: which files make the request (widened by what an existing
// install has). It runs under the label's install lock; `should_stop` is true once interrupted.
using PlanFiles = std::function<Result<InstallPlan>(const InstallRequest&, const std::function<bool()>& should_stop)>;

// The redist source's plan: one archive per component of redistrib_<label>.json.
struct PlanRequest {
  std::string label;                    // "12.1.1"
  std::string profile;                  // minimal | torch | full
  std::vector<std::string> components;  // added on top of the profile
  std::string platform;                 // "linux-x86_64"
};

// Whether `profile` exists for the label's major version ("full" always does); checked before
// anything is fetched.
Status check_profile(const ProfileCatalog& profiles, const std::string& label, const std::string& profile);
// A release label names folders and files (versions/<label>, redistrib_<label>.json): whichever
// catalog, index or listing gave it, it must be a version, never a path.
Status check_release_label(const std::string& label);

// The components of `profile` for the label's major version, in the data file's order.
Result<std::vector<std::string>> profile_components(const ProfileCatalog& profiles, const RedistManifest& manifest,
                                                    const std::string& label, const std::string& profile,
                                                    const std::string& platform);

// One archive per component, profile first then extras, without duplicates, each url below the
// manifest's folder (in_folder). A component the manifest lacks (or lacks for the platform) is an
// error listing the ones it has.
Result<std::vector<Archive>> plan_install(const RedistManifest& manifest, const ProfileCatalog& profiles,
                                          const PlanRequest& request);

// The archive of `component` for `platform`; variant manifests pick "cuda<major>".
std::optional<Archive> archive_for(const RedistComponent& component, const std::string& platform, int major);

// linux-x86_64 or linux-sbsa for the machine this runs on (`machine` as uname -m prints it).
std::optional<std::string> redist_platform_for(const std::string& machine);

}  // namespace cudaenv
