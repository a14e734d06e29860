#pragma once
// `install --locked`, `--frozen` and [cuda] lock = true: exactly the archives a cuda.lock holds,
// fetched only from places the user vouches for (lock/lock_places.h; docs/locks.md).

#include <optional>
#include <string>
#include <vector>

#include "core/setting.h"
#include "install/catalog.h"
#include "install/installer.h"
#include "install/progress.h"
#include "lock/lock_places.h"
#include "lock/project_lock.h"
#include "shell/trust.h"
#include "util/result.h"

namespace cudaenv {

// How a locked install was asked for: the places and the pin setting the user gave, and the
// flag, which the hints repeat.
struct LockUse {
  Setting mirror;  // --mirror, CUDAENV_MIRROR, or the default (NVIDIA's folder)
  Setting index;   // --index-url, PIP_INDEX_URL, pip's files, or the default (PyPI)
  bool skip_manifest_pin = false;
  std::string flag;  // "--locked", "--frozen", or "" ([cuda] lock = true)

  std::string command() const { return flag.empty() ? "cudaenv install" : "cudaenv install " + flag; }
};

struct LockedInstall {
  InstallRequest request;
  PlanFiles plan_files;
};

// A place the user named or configured, which replaces the lock's place of its kind.
struct Replacement {
  std::string root;
  std::string origin;  // "--mirror", "CUDAENV_MIRROR", a pip configuration file
};

struct Replacements {
  std::optional<Replacement> redist, cudnn, index;

  const std::optional<Replacement>& of(PlaceKind kind) const {
    return kind == PlaceKind::redist_folder ? redist : kind == PlaceKind::cudnn_folder ? cudnn : index;
  }
};

// A lock from a cloned repository does not choose the server: each place it names (places[i]
// of archives[i]) that is neither a default nor replaced needs the lock to be `trusted`. The
// error names the hosts and the ways to vouch for them.
Status check_vouched(const LockFile& file, const std::vector<ArchivePlace>& places, const std::vector<LockedArchive>& archives,
                     const Replacements& replaced, const DefaultPlaces& defaults, bool trusted, const LockUse& use);

// The label's shipped pin vouches for NVIDIA's manifest; a lock that says it was made from
// another one was made from a private mirror's manifests, or edited.
Status check_manifest_pin(const LockFile& file, const ReleaseCatalog& releases, const LockUse& use);

// An install of exactly what the lock holds for `platform`. Before anything is fetched, each
// archive's place must be NVIDIA's or PyPI's, or one the user named or configured (--mirror,
// CUDAENV_MIRROR, CUDAENV_CUDNN_MIRROR, --index-url, pip's index), which replaces the lock's
// (said once), or the lock must be trusted (`cudaenv trust`); and a shipped pin for the label
// must agree with the lock's manifest_sha256 (unless skipped). Its PlanFiles then reads the
// folder's manifest, which must be the one the lock was made from and give the locked archives,
// and finds each wheel on a replacing index by its file name. The downloads are checked against
// the lock's sha256 and size.
// `sources` gives cuDNN's mirror setting, the replacing index (asked only where `use.index` is
// set), the fetch settings and the shipped catalogs; `trust` says whether the user trusts the lock.
Result<LockedInstall> locked_install(const LockFile& file, const std::string& platform, const ReleaseCatalog& releases,
                                     const ProfileCatalog& profiles, const LockUse& use, const LockSources& sources,
                                     const TrustStore& trust, ProgressReporter& progress);

}  // namespace cudaenv
