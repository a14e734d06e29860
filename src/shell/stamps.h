#pragma once
// Shells have no builtin stat, but bash, zsh and fish all compare mtimes to the
// nanosecond with `test A -nt B` / `-ot`. So the hook keeps, for each mtime it has seen,
// an empty file CUDAENV_ROOT/cache/stamps/<sec>.<nsec> carrying that mtime, and the
// prompt's fast path checks "neither newer nor older than its stamp" with no fork.

#include <filesystem>

#include "core/hook_state.h"

namespace cudaenv {

// The watch for `path` as it is now: its stamp (made when missing), "must not exist",
// or always stale when no stamp can be made.
Watch watch_mtime(const fs::path& stamps_dir, const fs::path& path);

}  // namespace cudaenv
