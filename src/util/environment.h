#pragma once
// The process environment as a plain value, so environment computations are pure.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaenv {

using EnvMap = std::map<std::string, std::string>;

EnvMap env_from_environ(char** envp);
// "NAME=value" strings in a stable order, for execve.
std::vector<std::string> env_to_strings(const EnvMap& env);
// The value of `name`, treating an empty value as unset.
std::optional<std::string> env_get(const EnvMap& env, const std::string& name);

}  // namespace cudaenv
