#include "core/hook_state.h"

#include <algorithm>

#include "util/strings.h"

namespace cudaenv {

namespace {

constexpr std::string_view kMagic = "cudaenv2";
constexpr std::string_view kOldMagic = "cudaenv1";  // its header (watch lines) ends at an empty line

std::string escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out;
}

std::string unescaped(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    char next = text[++i];
    out += next == 'n' ? '\n' : next == 't' ? '\t' : next;
  }
  return out;
}

std::string record(std::initializer_list<std::string_view> fields) {
  std::string line;
  for (std::string_view field : fields) line += (line.empty() ? "" : "\t") + escaped(field);
  return line + "\n";
}

// A record of a known tag and its number of fields; others are skipped.
void read_record(const std::vector<std::string>& parts, HookState& state) {
  const std::string& tag = parts[0];
  if (tag == "A" && parts.size() == 2) state.announced = unescaped(parts[1]);
  else if (tag == "N" && parts.size() == 2) state.notice_key = unescaped(parts[1]);
  else if (tag == "P" && parts.size() == 3) state.entries.push_back({unescaped(parts[1]), unescaped(parts[2])});
  else if (tag == "S" && parts.size() == 4)
    state.values.push_back({unescaped(parts[1]), unescaped(parts[2]), unescaped(parts[3])});
  else if (tag == "U" && parts.size() == 3) state.values.push_back({unescaped(parts[1]), unescaped(parts[2]), std::nullopt});
}

}  // namespace

std::string format_state(const HookState& state) {
  std::string out = std::string(kMagic) + "\n";
  if (!state.announced.empty()) out += record({"A", state.announced});
  if (!state.notice_key.empty()) out += record({"N", state.notice_key});
  for (const OwnedEntry& owned : state.entries) out += record({"P", owned.variable, owned.entry});
  for (const OwnedValue& owned : state.values) {
    out +=
        owned.previous ? record({"S", owned.variable, owned.value, *owned.previous}) : record({"U", owned.variable, owned.value});
  }
  return out;
}

HookState parse_state(std::string_view text) {
  HookState state;
  while (starts_with(text, "!")) text.remove_prefix(1);  // an older shell function's stale mark
  std::vector<std::string> lines = split(text, '\n');
  if (lines.empty() || (lines[0] != kMagic && lines[0] != kOldMagic)) return state;
  size_t i = 1;
  if (lines[0] == kOldMagic) {
    while (i < lines.size() && !lines[i].empty()) ++i;
  }
  for (; i < lines.size(); ++i) {
    if (!lines[i].empty()) read_record(split(lines[i], '\t'), state);
  }
  return state;
}

EnvMap without_hook_changes(EnvMap env) {
  auto state_text = env.find(kStateVariable);
  if (state_text == env.end()) return env;
  HookState state = parse_state(state_text->second);
  env.erase(state_text);
  // The last recorded first.
  for (auto owned = state.entries.rbegin(); owned != state.entries.rend(); ++owned) {
    auto found = env.find(owned->variable);
    if (found == env.end()) continue;
    std::vector<std::string> list = split(found->second, ':');
    auto first = std::find(list.begin(), list.end(), owned->entry);
    if (first == list.end()) continue;
    list.erase(first);
    if (list.empty()) env.erase(found);
    else found->second = join(list, ":");
  }
  for (auto owned = state.values.rbegin(); owned != state.values.rend(); ++owned) {
    auto found = env.find(owned->variable);
    if (found == env.end() || found->second != owned->value) continue;
    if (owned->previous) found->second = *owned->previous;
    else env.erase(found);
  }
  return env;
}

}  // namespace cudaenv
