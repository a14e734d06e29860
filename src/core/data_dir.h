#pragma once
// Where the parts of an installed cudaenv are, found from the running program:
//   PREFIX/bin/cudaenv,
//   PREFIX/libexec/cudaenv/{cudaenv-fetch,cudaenv-shim},
//   PREFIX/share/cudaenv/manifests;
// in a build folder the programs sit side by side and the data is the source tree's.

#include <filesystem>
#include <string>

#include "util/environment.h"
#include "util/result.h"

namespace cudaenv {

struct DataFile {
  std::filesystem::path path;
  std::string text;
};

// The folder of data files cudaenv ships (manifests/), found once per command from its
// environment: CUDAENV_MANIFESTS_DIR, else PREFIX/share/cudaenv/manifests, else the source
// tree the binary was built from. A folder not found is an error only for a command that reads.
class DataFiles {
 public:
  static DataFiles find(const EnvMap& env);

  // The text of manifests/NAME; a missing or unreadable file is an error naming it.
  Result<DataFile> read(const std::string& name) const;

 private:
  Result<std::filesystem::path> dir_ = Error{};
};

// The running program itself, from /proc/self/exe.
Result<std::filesystem::path> running_program();

// The cudaenv a user runs, for what is told to the shell (`cudaenv init`) and what the shims
// hand over to: the running program, or from cudaenv-fetch the cudaenv beside it (a build
// folder) or in PREFIX/bin.
Result<std::filesystem::path> user_program();

// A companion program (cudaenv-shim, cudaenv-fetch): beside the running one, or in
// PREFIX/libexec/cudaenv.
Result<std::filesystem::path> locate_program(const std::string& name);

}  // namespace cudaenv
