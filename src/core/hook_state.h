#pragma once
// __CUDAENV_STATE: the one exported variable through which the hook remembers what it
// owns, so leaving can remove exactly that: line 1 "cudaenv2", then one line per record,
// fields tab-separated and backslash-escaped. The prompt never reads it (fast_path.h
// keeps what the prompt checks in plain shell variables), and it stays under a bound
// (kStateLimit) so that no command the shell starts fails with "Argument list too long".
// A "cudaenv1" state (watch lines up to an empty line, then the records) still parses.

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
  std::string announced;   // the toolkit and origin last announced
  std::string notice_key;  // a digest of the last notices, so they show once per change
  std::vector<OwnedEntry> entries;
  std::vector<OwnedValue> values;
};

inline constexpr const char* kStateVariable = "__CUDAENV_STATE";
// The kernel refuses an environment string over 128 KiB (MAX_ARG_STRLEN), and then every
// command fails; half of it leaves room for the name and for growth between checks.
inline constexpr std::size_t kStateLimit = 64 * 1024;

std::string format_state(const HookState& state);

// Tolerant: a missing or garbled state is an empty one (nothing owned).
HookState parse_state(std::string_view text);

// The environment as it was before the shell hook changed it (the state variable gone): what
// `system` means and what another toolkit's environment is built on. Each list entry the hook
// put in front loses its first occurrence (a list left empty is unset), and each variable
// still holding the value the hook gave it gets its previous value back; one the user changed
// since keeps theirs.
EnvMap without_hook_changes(EnvMap env);

}  // namespace cudaenv
