#include "util/environment.h"

#include <new>

#include "util/strings.h"

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

// One copy, in C, for the lean front too.
EnvMap without_hook_changes(const EnvMap& env) {
  if (!env.count(LEAN_STATE_VARIABLE)) return env;
  std::vector<std::string> strings = env_to_strings(env);
  std::vector<char*> entries = c_string_array(strings);
  LeanMemory memory;
  char** pristine = lean_without_hook_changes(memory.memory(), entries.data());
  if (!pristine) throw std::bad_alloc();
  return env_from_environ(pristine);
}

// NULL where memory runs out, never an exception: one must not unwind through the C code,
// which answers NULL in turn.
void* LeanMemory::allocate(void* self, size_t size) {
  try {
    auto& blocks = static_cast<LeanMemory*>(self)->blocks_;
    blocks.push_back(std::unique_ptr<char[]>(new char[size]));
    return blocks.back().get();
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

LeanMemory::LeanMemory() : memory_{allocate, this} {}

}  // namespace cudaenv
