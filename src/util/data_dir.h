#pragma once
// Where the parts of an installed cudaenv are, found from the running program:
//   PREFIX/bin/cudaenv, PREFIX/libexec/cudaenv/{cudaenv-shim,cudaenv-fetch},
//   PREFIX/share/cudaenv/manifests;
// in a build folder the programs sit side by side and the data is the source tree's.

#include <filesystem>
#include <string>

#include "util/result.h"

namespace cudaenv {

// The folder of data files cudaenv ships (manifests/): CUDAENV_MANIFESTS_DIR, else
// PREFIX/share/cudaenv/manifests, else the source tree the binary was built from.
Result<std::filesystem::path> manifests_dir();

struct DataFile {
  std::filesystem::path path;
  std::string text;
};

// The text of manifests/NAME; a missing or unreadable file is an error naming it.
Result<DataFile> read_manifest(const std::string& name);

// The running program itself, from /proc/self/exe.
Result<std::filesystem::path> running_program();

// A companion program (cudaenv-shim, cudaenv-fetch): beside the running one, or in
// PREFIX/libexec/cudaenv.
Result<std::filesystem::path> locate_program(const std::string& name);

}  // namespace cudaenv
