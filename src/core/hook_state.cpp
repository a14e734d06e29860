#include "core/hook_state.h"

#include <algorithm>
#include <new>

#include "lean/lean_hook.h"

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
  lean_plan memory{};
  lean_state parsed;
  if (!lean_parse_state(&memory, text.data(), text.size(), &parsed)) {
    lean_plan_free(&memory);
    throw std::bad_alloc();
  }
  HookState state{parsed.announced, parsed.notice_key, {}, {}};
  for (size_t i = 0; i < parsed.entry_count; ++i) state.entries.push_back({parsed.entries[i].variable, parsed.entries[i].value});
  for (size_t i = 0; i < parsed.value_count; ++i) {
    const lean_owned& owned = parsed.values[i];
    state.values.push_back(
        {owned.variable, owned.value, owned.previous ? std::optional<std::string>(owned.previous) : std::nullopt});
  }
  lean_plan_free(&memory);
  return state;
}

EnvMap revert_owned(EnvMap env, const std::vector<OwnedEntry>& entries, const std::vector<OwnedValue>& values) {
  for (auto owned = entries.rbegin(); owned != entries.rend(); ++owned) {
    auto found = env.find(owned->variable);
    if (found == env.end()) continue;
    std::vector<std::string> list = split(found->second, ':');
    auto first = std::find(list.begin(), list.end(), owned->entry);
    if (first == list.end()) continue;
    list.erase(first);
    if (list.empty()) env.erase(found);
    else found->second = join(list, ":");
  }
  for (auto owned = values.rbegin(); owned != values.rend(); ++owned) {
    auto found = env.find(owned->variable);
    if (found == env.end() || found->second != owned->value) continue;
    if (owned->previous) found->second = *owned->previous;
    else env.erase(found);
  }
  return env;
}

EnvMap without_hook_changes(EnvMap env) {
  auto state_text = env.find(kStateVariable);
  if (state_text == env.end()) return env;
  HookState state = parse_state(state_text->second);
  env.erase(state_text);
  return revert_owned(std::move(env), state.entries, state.values);
}

}  // namespace cudaenv
