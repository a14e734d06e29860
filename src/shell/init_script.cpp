#include "shell/init_script.h"

#include "shell/embedded.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

std::string replaced(std::string text, std::string_view placeholder, std::string_view value) {
  for (size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size())) {
    text.replace(at, placeholder.size(), value);
  }
  return text;
}

}  // namespace

std::optional<ShellKind> parse_shell_kind(std::string_view name) {
  if (name == "bash") return ShellKind::bash;
  if (name == "zsh") return ShellKind::zsh;
  if (name == "fish") return ShellKind::fish;
  return std::nullopt;
}

ShellDialect dialect_of(ShellKind shell) { return shell == ShellKind::fish ? ShellDialect::fish : ShellDialect::posix; }

std::string init_script(ShellKind shell, const std::filesystem::path& binary, const std::filesystem::path& shims_dir) {
  std::string text;
  std::string name;
  switch (shell) {
    case ShellKind::bash:
      text = std::string(embedded::init_bash_zsh) + embedded::init_bash + embedded::completion_bash;
      name = "bash";
      break;
    case ShellKind::zsh:
      text = replaced(std::string(embedded::init_bash_zsh) + embedded::init_zsh, "@COMPLETION@", embedded::completion_zsh);
      name = "zsh";
      break;
    case ShellKind::fish:
      text = replaced(embedded::init_fish, "@COMPLETION@", embedded::completion_fish);
      name = "fish";
      break;
  }
  auto quote = shell == ShellKind::fish ? fish_quote : posix_quote;
  text = replaced(std::move(text), "@BIN@", quote(binary.string()));
  text = replaced(std::move(text), "@BIN_DIR@", quote(binary.parent_path().string()));
  text = replaced(std::move(text), "@SHIMS@", quote(shims_dir.string()));
  return replaced(std::move(text), "@SHELL@", name);
}

}  // namespace cudaenv
