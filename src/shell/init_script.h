#pragma once
// `cudaenv init SHELL`: the integration a shell evaluates once at start-up.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/toolkit_env.h"

namespace cudaenv {

enum class ShellKind { bash, zsh, fish };

std::optional<ShellKind> parse_shell_kind(std::string_view name);
ShellDialect dialect_of(ShellKind shell);

// `binary` is what the hook and the `cudaenv` function run (absolute, so the hook does
// not depend on PATH); `shims_dir` goes on PATH once.
std::string init_script(ShellKind shell, const std::filesystem::path& binary, const std::filesystem::path& shims_dir);

}  // namespace cudaenv
