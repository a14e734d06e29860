#pragma once
// `install --locked`, `--frozen` and [cuda] lock = true: exactly the archives a cuda.lock holds,
// fetched only from places the user vouches for (lock/lock_places.h; docs/locks.md).

#include <string>

#include "cli/project_lock.h"
#include "cli/session.h"
#include "install/catalog.h"
#include "install/installer.h"
#include "install/progress.h"
#include "util/result.h"

namespace cudaenv {

// How a locked install was asked for: the places and the pin setting the user gave, and the
// flag, which the hints repeat.
struct LockUse {
  std::string mirror_option;     // --mirror
  std::string index_url_option;  // --index-url
  bool skip_manifest_pin = false;
  std::string flag;  // "--locked", "--frozen", or "" ([cuda] lock = true)

  std::string command() const { return flag.empty() ? "cudaenv install" : "cudaenv install " + flag; }
};

struct LockedInstall {
  InstallRequest request;
  PlanFiles plan_files;
};

// An install of exactly what the lock holds for `platform`. Before anything is fetched, each
// archive's place must be NVIDIA's or PyPI's, or one the user named or configured (--mirror,
// CUDAENV_MIRROR, CUDAENV_CUDNN_MIRROR, --index-url, pip's index), which replaces the lock's
// (said once), or the lock must be trusted (`cudaenv trust`); and a shipped pin for the label
// must agree with the lock's manifest_sha256 (unless skipped). Its PlanFiles then reads the
// folder's manifest, which must be the one the lock was made from and give the locked archives,
// and finds each wheel on a replacing index by its file name. The downloads are checked against
// the lock's sha256 and size.
Result<LockedInstall> locked_install(const Session& session, const LockFile& file, const std::string& platform,
                                     const ReleaseCatalog& releases, const ProfileCatalog& profiles, const LockUse& use,
                                     ProgressReporter& progress);

}  // namespace cudaenv
