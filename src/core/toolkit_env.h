#pragma once
// The environment a selected toolkit gets (docs/design.md "The environment of a selected toolkit
// gets"), as a change that can be applied to, or rendered against, an environment.

#include <string>
#include <utility>
#include <vector>

#include "core/selection.h"
#include "util/environment.h"

namespace cudaenv {

struct EnvChange {
  std::vector<std::pair<std::string, std::string>> set;      // variable, value
  std::vector<std::pair<std::string, std::string>> prepend;  // list variable, entry

  bool empty() const { return set.empty() && prepend.empty(); }
};

// What `toolkit` needs; the "system" toolkit needs nothing, since it is what the
// environment already has. `arch` comes from the governing cuda.toml.
EnvChange toolkit_env_change(const Toolkit& toolkit, const std::vector<std::string>& arch);

EnvChange selection_env_change(const Selection& selection);

// Puts each prepended entry first, dropping its other occurrences.
std::string prepend_entry(const std::string& list, const std::string& entry);

void apply_env_change(const EnvChange& change, EnvMap& env);

// The variables the change touches, with their values after applying it to `env`.
std::vector<std::pair<std::string, std::string>> changed_values(const EnvChange& change, const EnvMap& env);

enum class ShellDialect { posix, fish, json };

std::string render_exports(const std::vector<std::pair<std::string, std::string>>& values, ShellDialect dialect);

}  // namespace cudaenv
