#pragma once
// What the prompt checks without a fork. `cudaenv hook-env` precomputes it into plain,
// unexported shell variables once per change, so a prompt reads no state text (fish
// names them with two leading underscores):
//   _cudaenv_ready    set while the others are valid; the cudaenv function unsets it
//   _cudaenv_dir      the $PWD the answer was computed in
//   _cudaenv_version  the CUDAENV_VERSION it was computed with ("" when unset)
//   _cudaenv_target   the CUDAENV_TARGET it was computed with ("" when unset)
//   _cudaenv_scope    the folder of the governing cuda.toml without its trailing slash
//                     ("" for /, and when no cuda.toml governs)
//   _cudaenv_fixed    a `test` expression that is true once a watched file changed: the
//                     scope's cuda.toml, the global file, the versions and trust folders
//   _cudaenv_changed  the same, or a cuda.toml in a folder between $PWD and the scope
// After a cd within the scope the shell rebuilds _cudaenv_changed for the new $PWD
// itself (a cd that cannot change the toolkit forks nothing); any other cd, or a true
// `test`, runs hook-env. Each mtime is compared with -nt/-ot against a stamp file.

#include <filesystem>
#include <string>
#include <vector>

#include "core/hook_state.h"
#include "core/toolkit_env.h"

namespace cudaenv {

struct FastPath {
  std::string dir;
  std::string version_override;
  std::string target_override;
  fs::path scope;              // the folder whose cuda.toml governs; "/" when none does
  std::vector<Watch> folders;  // a cuda.toml in each folder from `dir` up to `scope` (excluded)
  std::vector<Watch> fixed;    // what the answer depends on wherever in the scope
};

// The assignments for `dialect`; a watch the shell cannot compare (no stamp could be made,
// a relative path) turns the fast path off, so every prompt asks hook-env.
std::string render_fast_path(const FastPath& fast, ShellDialect dialect);

}  // namespace cudaenv
