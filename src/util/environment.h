#pragma once
// The process environment as a plain value, so environment computations are pure.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lean/lean_state.h"

namespace cudaenv {

using EnvMap = std::map<std::string, std::string>;

EnvMap env_from_environ(char** envp);
// "NAME=value" strings in a stable order, for execve.
std::vector<std::string> env_to_strings(const EnvMap& env);
// The value of `name`, treating an empty value as unset.
std::optional<std::string> env_get(const EnvMap& env, const std::string& name);

// The environment as it was before the shell hook changed it (its state variable,
// core/hook_state.h, gone): what `system` means and what another toolkit's environment is
// built on. Each list entry the hook put in front loses its first occurrence (a list left
// empty is unset), and each variable still holding the value the hook gave it gets its
// previous value back; one the user changed since keeps theirs.
EnvMap without_hook_changes(const EnvMap& env);

// Memory for what a lean (C) call answers (lean/lean_state.h), freed with this object.
class LeanMemory {
 public:
  LeanMemory();
  LeanMemory(const LeanMemory&) = delete;
  LeanMemory& operator=(const LeanMemory&) = delete;
  const lean_memory* memory() const { return &memory_; }

 private:
  static void* allocate(void* self, size_t size);

  std::vector<std::unique_ptr<char[]>> blocks_;
  lean_memory memory_;
};

}  // namespace cudaenv
