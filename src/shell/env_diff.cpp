#include "shell/env_diff.h"

#include <algorithm>

#include "util/strings.h"

namespace cudaenv {

OwnedChange apply_owned(const EnvChange& change, EnvMap& env) {
  OwnedChange owned;
  for (const auto& [name, value] : change.set) {
    auto found = env.find(name);
    owned.values.push_back({name, value, found == env.end() ? std::nullopt : std::optional(found->second)});
    env[name] = value;
  }
  for (const auto& [name, entry] : change.prepend) {
    std::string& list = env[name];
    list = list.empty() ? entry : entry + ":" + list;
    owned.entries.push_back({name, entry});
  }
  return owned;
}

std::string render_env_update(const EnvMap& before, const EnvMap& after, const std::vector<std::string>& names,
                              ShellDialect dialect) {
  std::vector<std::pair<std::string, std::string>> exports;
  std::string unsets;
  std::vector<std::string> done;
  for (const std::string& name : names) {
    if (std::find(done.begin(), done.end(), name) != done.end()) continue;
    done.push_back(name);
    auto old_value = before.find(name);
    auto new_value = after.find(name);
    if (new_value != after.end()) {
      if (old_value == before.end() || old_value->second != new_value->second) exports.emplace_back(name, new_value->second);
    } else if (old_value != before.end()) {
      unsets += (dialect == ShellDialect::fish ? "set -e -g " : "unset ") + name + ";\n";
    }
  }
  return unsets + render_exports(exports, dialect);
}

}  // namespace cudaenv
