#pragma once
// The environment a selected toolkit gets (docs/design.md "The environment of a selected toolkit
// gets"), as a change that can be applied to, or rendered against, an environment.

#include <optional>
#include <string>
#include <string_view>
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

// What a selection sets for tools other than the toolkit's own, worked out above core: uv's
// torch backend (torch/uv_backend.h) and the selected target's variables. The shim passes none:
// nvcc and its tools read none of it (so a shim's record never rests on a target's file).
struct SelectionExtras {
  std::optional<std::string> uv_torch_backend;  // "cu124", "cpu"
  // What a selected target sets for uv, conda and builds (core/target.h target_variables).
  std::vector<std::pair<std::string, std::string>> target_variables{};
  std::vector<fs::path> inputs{};  // the files it was worked out from, for the hook to watch
};

// The toolkit's environment, the project's host compiler (NVCC_CCBIN, CUDAHOSTCXX, CC, CXX:
// docs/host-compiler.md) and `extras`: the one place a selection's variables are decided.
EnvChange selection_env_change(const Selection& selection, const SelectionExtras& extras = {});

// A host compiler named either way, as its C and C++ drivers: gcc-12 -> gcc-12 and g++-12,
// /opt/x/bin/clang++-17 -> /opt/x/bin/clang-17 and /opt/x/bin/clang++-17; nullopt for a name
// that is no gcc, clang or cc.
struct CompilerDrivers {
  std::string c, cxx;
};
std::optional<CompilerDrivers> compiler_drivers(std::string_view compiler);

// Puts each prepended entry first, dropping its other occurrences.
std::string prepend_entry(const std::string& list, const std::string& entry);

void apply_env_change(const EnvChange& change, EnvMap& env);

// The variables the change touches, with their values after applying it to `env`.
std::vector<std::pair<std::string, std::string>> changed_values(const EnvChange& change, const EnvMap& env);

enum class ShellDialect { posix, fish, json };

std::string render_exports(const std::vector<std::pair<std::string, std::string>>& values, ShellDialect dialect);

}  // namespace cudaenv
