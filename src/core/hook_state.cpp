#include "core/hook_state.h"

#include <new>

#include "util/environment.h"
#include "util/strings.h"

namespace cudaenv {

// One copy, in C, for the lean front's hook-env too.
std::string format_state(const HookState& state) {
  std::vector<lean_owned> entries, values;
  for (const OwnedEntry& owned : state.entries) entries.push_back({owned.variable.c_str(), owned.entry.c_str(), nullptr});
  for (const OwnedValue& owned : state.values) {
    values.push_back({owned.variable.c_str(), owned.value.c_str(), owned.previous ? owned.previous->c_str() : nullptr});
  }
  lean_state lean{
      state.announced.c_str(), state.notice_key.c_str(), entries.data(), entries.size(), values.data(), values.size()};
  lean_text out{};
  lean_format_state(&lean, &out);
  return take_lean_text(out);
}

HookState parse_state(std::string_view text) {
  LeanMemory memory;
  lean_state parsed;
  if (!lean_parse_state(memory.memory(), text.data(), text.size(), &parsed)) throw std::bad_alloc();
  HookState state{parsed.announced, parsed.notice_key, {}, {}};
  for (size_t i = 0; i < parsed.entry_count; ++i) state.entries.push_back({parsed.entries[i].variable, parsed.entries[i].value});
  for (size_t i = 0; i < parsed.value_count; ++i) {
    const lean_owned& owned = parsed.values[i];
    state.values.push_back(
        {owned.variable, owned.value, owned.previous ? std::optional<std::string>(owned.previous) : std::nullopt});
  }
  return state;
}

}  // namespace cudaenv
