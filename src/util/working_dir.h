#pragma once

#include <filesystem>

#include "util/environment.h"
#include "util/result.h"

namespace cudaenv {

// The current directory as the shell names it: $PWD when it is the same directory as
// getcwd(), so a project reached through a symlink finds the cuda.toml above the link
// (as `cd` shows it), and getcwd() otherwise.
Result<std::filesystem::path> logical_working_dir(const EnvMap& env);

}  // namespace cudaenv
