#pragma once

#include <filesystem>

#include "util/result.h"

namespace cudaenv {

// The folder of data files cudaenv ships (manifests/): CUDAENV_MANIFESTS_DIR, else
// <prefix>/share/cudaenv/manifests beside the installed binary, else the source tree
// the binary was built from (so a build folder works without installing).
Result<std::filesystem::path> manifests_dir();

}  // namespace cudaenv
