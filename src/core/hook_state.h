#pragma once
// __CUDAENV_STATE: the one shell variable through which the hook remembers what it did.
//
// Its first part is read by the shell itself on every prompt (the fast path, no fork):
//   line 1  "cudaenv1" ("!cudaenv1" once the cudaenv shell function marks it stale)
//   line 2  $PWD the state was computed for
//   line 3  CUDAENV_VERSION it was computed with ("" when unset)
//   then one line per watched path, ended by an empty line:
//     "=PATH<TAB>STAMP"  PATH exists and has STAMP's mtime (nanoseconds, via -nt/-ot)
//     "-PATH"            PATH does not exist (a cuda.toml that would take over)
//     "!"                always stale (a path the shell could not compare safely)
// The rest is read only by `cudaenv hook-env`: what it added, so leaving can remove
// exactly that. Its lines start with a letter (fish's fast path relies on it), and
// fields there are tab-separated and backslash-escaped.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/environment.h"

namespace cudaenv {

namespace fs = std::filesystem;

struct Watch {
  fs::path path;
  std::optional<fs::path> stamp;  // a file with the mtime `path` had; nullopt: must not exist
  bool always_stale = false;      // no stamp could be made for an existing path
};

struct OwnedEntry {  // an entry cudaenv put in front of a list variable (PATH, LD_LIBRARY_PATH)
  std::string variable;
  std::string entry;
};

struct OwnedValue {  // a variable cudaenv set, and what it was before
  std::string variable;
  std::string value;
  std::optional<std::string> previous;  // nullopt: it was unset
};

struct HookState {
  std::string dir;
  std::string version_override;
  std::vector<Watch> watches;
  std::string announced;   // the toolkit and origin last announced
  std::string notice_key;  // what the last notices were about, so they show once per change
  std::vector<OwnedEntry> entries;
  std::vector<OwnedValue> values;
};

inline constexpr const char* kStateVariable = "__CUDAENV_STATE";

std::string format_state(const HookState& state);

// Tolerant: a missing or garbled state is an empty one (nothing owned).
HookState parse_state(std::string_view text);

// `env` without what `owned` records: each owned list entry loses its first occurrence
// (a list left empty is unset), and each owned variable still holding the value cudaenv
// gave it gets its previous value back. A variable the user changed since keeps theirs.
EnvMap revert_owned(EnvMap env, const std::vector<OwnedEntry>& entries, const std::vector<OwnedValue>& values);

// The environment as it was before the shell hook changed it (its state variable gone):
// what `system` means and what another toolkit's environment is built on.
EnvMap without_hook_changes(EnvMap env);

}  // namespace cudaenv
