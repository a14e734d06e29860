#pragma once
// A mirror folder on disk: its index read and updated, and one release synced into it from an
// upstream redist folder.

#include <filesystem>
#include <string>
#include <vector>

#include "core/settings_table.h"
#include "install/archive.h"
#include "install/catalog.h"
#include "install/fetch_settings.h"
#include "install/progress.h"
#include "mirror/release_discovery.h"
#include "util/result.h"

namespace cudaenv {

struct SyncRequest {
  std::string label;                    // a full release label, already resolved
  std::string profile;                  // minimal | torch | full
  std::vector<std::string> components;  // extras
  std::vector<std::string> platforms;   // at least one
  std::string base_url;                 // the upstream redist folder, ending in '/'
  std::filesystem::path dir;            // the mirror folder
  int jobs = kDefaultJobs;
  bool skip_manifest_pin = false;
  FetchSettings fetch;
};

// DIR/cudaenv-mirror.json, or an empty index when the folder has none yet.
Result<MirrorIndex> read_mirror_index(const std::filesystem::path& dir);

// Fetches the manifest (checked against its pin) and every planned archive of every platform
// into DIR at its relative_path, plus whatever DIR's index already holds of the release (its
// components on its platforms), so a plain second sync repairs the first. Verified files are kept, partial ones resumed; the
// manifest is written last, byte for byte as served.
Result<MirrorRelease> sync_release(const ReleaseCatalog& releases, const ProfileCatalog& profiles, const SyncRequest& request,
                                   const MirrorIndex& held, ProgressReporter& progress);

// Replaces DIR's index atomically (readers see the old one or the new one).
Status write_mirror_index(const std::filesystem::path& dir, const MirrorIndex& index);

}  // namespace cudaenv
