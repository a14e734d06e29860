#pragma once
// Between cuda.toml, cuda.lock and an install: what a project asks for, resolving it into a lock
// (the network: manifests, library releases), and turning a lock back into an install request.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda_toml.h"
#include "core/data_dir.h"
#include "core/settings_table.h"
#include "install/catalog.h"
#include "install/fetch_settings.h"
#include "install/installer.h"
#include "install/progress.h"
#include "lock/lock_file.h"
#include "util/result.h"

namespace cudaenv {

// What a cuda.toml asks for, as a lock records it, with where its toolkit comes from.
LockRequest lock_request_of(const CudaToml& toml, InstallSource source_kind);

// cuda.lock beside the cuda.toml.
std::filesystem::path lock_path_of(const CudaToml& toml);

// A cuda.lock as read: what it says, and the bytes its trust is checked on.
struct LockFile {
  std::filesystem::path path;
  std::string text;
  CudaLock lock;
};

// The lock file, or nullopt when there is none.
Result<std::optional<LockFile>> read_lock_file(const std::filesystem::path& path);

Status write_lock_file(const std::filesystem::path& path, const CudaLock& lock);

// Where a resolution reads from, as the command resolved it.
struct LockSources {
  std::string base_url;  // the CUDA redist folder, ending in '/'
  bool skip_manifest_pin = false;
  Setting cudnn_mirror;  // CUDAENV_CUDNN_MIRROR (install/library.h cudnn_base_url)
  // The package index of the pypi source and of libraries from wheels (NCCL), as pip's:
  // asked only once one is needed, since a bad one is an error only then.
  std::function<Result<std::string>()> index_url;
  FetchSettings fetch;
  DataFiles data;                   // the shipped catalogs (cuDNN's)
  std::filesystem::path cache_dir;  // where folder listings are cached
};

// Resolves a request for each platform: the label, the manifest (pypi: the metapackage), the
// profile's archives (wheels) and the libraries for the toolkit's major.
Result<CudaLock> resolve_lock(const ReleaseCatalog& releases, const ProfileCatalog& profiles, const LockRequest& request,
                              const std::vector<std::string>& platforms, const LockSources& sources, ProgressReporter& progress);

// A source's PlanFiles with the request's libraries added (resolved for the toolkit's major).
PlanFiles with_libraries(PlanFiles plan_files, const LockSources& sources, ProgressReporter& progress);

// How an installed toolkit differs from the lock (empty: it is what the lock says).
std::vector<std::string> installed_differences(const std::filesystem::path& home, const CudaLock& lock,
                                               const std::string& platform);

}  // namespace cudaenv
