#pragma once
// Owning what the hook changes: applying an EnvChange records each list entry added and
// each variable overridden, so reverting removes exactly those and leaves the user's
// own edits in place (mise's per-entry ownership, docs/sources.md, not direnv's
// wholesale restore).

#include <string>
#include <vector>

#include "core/hook_state.h"
#include "core/toolkit_env.h"
#include "util/environment.h"

namespace cudaenv {

struct OwnedChange {
  std::vector<OwnedEntry> entries;
  std::vector<OwnedValue> values;
};

// Applies `change` to `env` (variables first, then list entries, which go in front
// even when already present further back, so there is exactly one entry to take away).
OwnedChange apply_owned(const EnvChange& change, EnvMap& env);

// Shell code turning `before` into `after` for the variables in `names`; nothing for
// those equal in both.
std::string render_env_update(const EnvMap& before, const EnvMap& after, const std::vector<std::string>& names,
                              ShellDialect dialect);

}  // namespace cudaenv
