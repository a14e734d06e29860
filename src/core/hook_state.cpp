#include "core/hook_state.h"

#include <algorithm>

#include "util/strings.h"

namespace cudaenv {

namespace {

constexpr std::string_view kMagic = "cudaenv1";

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

// The shell compares these lines raw; a path it cannot read back safely makes the
// watch "always stale", which costs a slow path but can never hide a change.
bool shell_safe(const std::string& text) { return text.find_first_of("\n\t\\") == std::string::npos; }

std::string watch_line(const Watch& watch) {
  std::string path = watch.path.string();
  if (watch.always_stale || !shell_safe(path)) return "!";
  if (!watch.stamp) return "-" + path;
  std::string stamp = watch.stamp->string();
  if (!shell_safe(stamp)) return "!";
  return "=" + path + "\t" + stamp;
}

std::string fields(std::initializer_list<std::string_view> parts) {
  std::string line;
  for (std::string_view part : parts) line += (line.empty() ? "" : "\t") + escaped(part);
  return line;
}

void read_owned(const std::vector<std::string>& parts, HookState& state) {
  const std::string& tag = parts[0];
  if (tag == "A" && parts.size() == 2) state.announced = unescaped(parts[1]);
  else if (tag == "N" && parts.size() == 2) state.notice_key = unescaped(parts[1]);
  else if (tag == "P" && parts.size() == 3) state.entries.push_back({unescaped(parts[1]), unescaped(parts[2])});
  else if (tag == "S" && parts.size() == 4) state.values.push_back({unescaped(parts[1]), unescaped(parts[2]), unescaped(parts[3])});
  else if (tag == "U" && parts.size() == 3) state.values.push_back({unescaped(parts[1]), unescaped(parts[2]), std::nullopt});
}

}  // namespace

std::string format_state(const HookState& state) {
  // A directory or version the shell could not compare raw never matches, so it
  // always takes the slow path instead of a wrong fast one.
  std::string out = std::string(kMagic) + "\n" + (shell_safe(state.dir) ? state.dir : "!" + escaped(state.dir)) + "\n" +
                    (shell_safe(state.version_override) ? state.version_override : "!" + escaped(state.version_override)) + "\n";
  for (const Watch& watch : state.watches) out += watch_line(watch) + "\n";
  out += "\n";
  if (!state.announced.empty()) out += fields({"A", state.announced}) + "\n";
  if (!state.notice_key.empty()) out += fields({"N", state.notice_key}) + "\n";
  for (const OwnedEntry& owned : state.entries) out += fields({"P", owned.variable, owned.entry}) + "\n";
  for (const OwnedValue& owned : state.values) {
    if (owned.previous) out += fields({"S", owned.variable, owned.value, *owned.previous}) + "\n";
    else out += fields({"U", owned.variable, owned.value}) + "\n";
  }
  return out;
}

HookState parse_state(std::string_view text) {
  HookState state;
  while (starts_with(text, "!")) text.remove_prefix(1);
  std::vector<std::string> lines = split(text, '\n');
  if (lines.size() < 4 || lines[0] != kMagic) return state;
  state.dir = lines[1];
  state.version_override = lines[2];
  size_t i = 3;
  for (; i < lines.size() && !lines[i].empty(); ++i) {
    const std::string& line = lines[i];
    if (line[0] == '-') {
      state.watches.push_back({line.substr(1), std::nullopt});
    } else if (line[0] == '=') {
      size_t tab = line.find('\t');
      if (tab != std::string::npos) state.watches.push_back({line.substr(1, tab - 1), fs::path(line.substr(tab + 1))});
    } else {
      state.watches.push_back({{}, std::nullopt, true});
    }
  }
  for (++i; i < lines.size(); ++i) {
    if (!lines[i].empty()) read_owned(split(lines[i], '\t'), state);
  }
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
