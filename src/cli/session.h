#pragma once
// What every command reads from the process: environment, directory, layout.

#include <filesystem>

#include "core/data_dir.h"
#include "core/layout.h"
#include "core/selection.h"
#include "store/targets.h"
#include "util/environment.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

struct Session {
  RealFileSystem fs;
  EnvMap env;
  std::filesystem::path cwd;
  Layout layout;
  DataFiles data;

  static Result<Session> from_process();
  // The active selection (or the `given` version's); project-file warnings are printed once here.
  Result<Selection> select(const std::optional<std::string>& given = std::nullopt) const {
    return select(toolkit_index(), given);
  }
  Result<Selection> select(const ToolkitIndex& toolkits, const std::optional<std::string>& given = std::nullopt) const;
  // A version given on the command line (`cudaenv COMMAND VERSION`): one that is no request is
  // a usage error (exit 2), checked before anything is listed; else its toolkit.
  Result<Toolkit> resolve_argument(const std::string& version, const std::string& command) const;
  // The target selected here (store/targets.h): CUDAENV_TARGET, else the governing cuda.toml's.
  Result<std::optional<SelectedTarget>> selected_target() const;
  std::vector<Toolkit> toolkits() const { return list_toolkits(fs, layout); }
  ToolkitIndex toolkit_index() const { return {fs, layout}; }
};

// A version given on the command line (an argument or an option such as `exec --cuda`): one
// that is no request is a usage error (exit 2).
Status check_version_argument(const std::string& version);

}  // namespace cudaenv
