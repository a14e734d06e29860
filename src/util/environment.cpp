#include "util/environment.h"

namespace cudaenv {

EnvMap env_from_environ(char** envp) {
  EnvMap env;
  for (char** entry = envp; entry && *entry; ++entry) {
    std::string text = *entry;
    size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    env.emplace(text.substr(0, eq), text.substr(eq + 1));
  }
  return env;
}

std::vector<std::string> env_to_strings(const EnvMap& env) {
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

std::optional<std::string> env_get(const EnvMap& env, const std::string& name) {
  auto it = env.find(name);
  if (it == env.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

}  // namespace cudaenv
