#pragma once
// Saved targets (core/target.h) on disk: NAME.toml in the root's targets/ folder, and in the
// shared root's, which a cluster's admins fill for every user and cudaenv never writes. The
// user's file of a name comes first. And the target selected here: CUDAENV_TARGET, else the
// governing cuda.toml's [target] name.

#include <optional>
#include <string>
#include <vector>

#include "core/cuda_toml.h"
#include "core/layout.h"
#include "core/setting.h"
#include "core/target.h"
#include "util/environment.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

// One file in a targets folder, read or not.
struct TargetFile {
  std::string name;
  fs::path path;
  bool shared = false;    // in the shared root: read-only
  bool shadowed = false;  // a file of the user's has the same name and comes first
  Result<Target> target;  // the file's error where it cannot be read
};

// Every NAME.toml in the targets folders, the user's first, by name; files whose name is no
// target name are left out.
std::vector<TargetFile> list_targets(const FileSystemView& fs, const Layout& layout);

// The file that holds `name` (the user's, else the shared root's), parsed; the error names the
// file, or says which targets there are.
Result<Target> load_target(const FileSystemView& fs, const Layout& layout, const std::string& name);

// Writes `target` as the user's NAME.toml, replacing one of the same name.
Result<fs::path> save_target(const Layout& layout, const Target& target);

// Removes the user's NAME.toml; a target only the shared root has is an error (read-only).
Result<fs::path> remove_target(const FileSystemView& fs, const Layout& layout, const std::string& name);

// The target selected and where that was said: CUDAENV_TARGET, or [target] name in `project`.
struct SelectedTarget {
  Target target;
  Setting setting;  // its origin: "CUDAENV_TARGET" or the cuda.toml's path
};

// The setting alone (no file read): nullopt where none is set.
std::optional<Setting> target_setting(const EnvMap& env, const std::optional<CudaToml>& project);

// The selected target, loaded; nullopt where none is selected. An error names the setting and
// the file (a bad name, a target that is not saved, a broken file).
Result<std::optional<SelectedTarget>> select_target(const FileSystemView& fs, const EnvMap& env, const Layout& layout,
                                                    const std::optional<CudaToml>& project);

}  // namespace cudaenv
