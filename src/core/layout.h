#pragma once
// Where cudaenv keeps its state (docs/design.md "CUDAENV_ROOT").

#include <filesystem>
#include <optional>

#include "util/environment.h"
#include "util/result.h"

namespace cudaenv {

namespace fs = std::filesystem;

struct Layout {
  fs::path user_root;                   // CUDAENV_ROOT, default ~/.cudaenv; writable
  std::optional<fs::path> shared_root;  // CUDAENV_SHARED_ROOT: shared, maybe read-only

  fs::path versions_dir() const { return user_root / "versions"; }
  fs::path shims_dir() const { return user_root / "shims"; }
  fs::path global_version_file() const { return user_root / "version"; }
  fs::path cache_dir() const { return user_root / "cache"; }
  fs::path trust_dir() const { return user_root / "trust"; }
  fs::path locks_dir() const { return user_root / "locks"; }
  // The version roots in search order: the user's, then the shared one.
  std::vector<fs::path> version_roots() const;
  // The folders of saved targets (core/target.h) in search order: the user's, then the shared
  // one's, which is read, never written.
  std::vector<fs::path> target_dirs() const;
};

// The variable that names the shared root: CUDAENV_SHARED_ROOT, else its old name
// CUDAENV_SYSTEM_ROOT (deprecated: "system" is the fallback toolkit); nullptr when neither is set.
const char* shared_root_variable(const EnvMap& env);

// From CUDAENV_ROOT / CUDAENV_SHARED_ROOT / HOME; relative paths are refused so the
// answer does not depend on the current directory.
Result<Layout> layout_from_env(const EnvMap& env);

// The layout of a shim at `shim`: one in <root>/shims knows its root where CUDAENV_ROOT is not
// exported (IDEs, cron); the root it finds is for finding toolkits, not for the program run.
Result<Layout> layout_for_shim(const EnvMap& env, const fs::path& shim);

}  // namespace cudaenv
