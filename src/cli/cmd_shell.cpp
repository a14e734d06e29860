// Shell integration: init, the hidden hook-env the prompt runs, shell, trust, untrust.
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "core/data_dir.h"
#include "core/settings_table.h"
#include "doctor/host_compiler.h"
#include "lock/lock_file.h"
#include "shell/hook.h"
#include "shell/init_script.h"
#include "shell/stamps.h"
#include "shell/trust.h"
#include "torch/selection_extras.h"
#include "util/output.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// Runs at a prompt: whatever goes wrong is said on stderr, and stdout stays code. It builds its
// own session (its table entry needs nothing) because a session that cannot be built, e.g. in
// a deleted folder, must stay silent here: the next cd fixes it, and a prompt must not spam.
int run_hook_env(const std::string& shell) {
  auto session = Session::from_process();
  if (!session) return 0;
  TrustStore trust(session->layout.trust_dir());
  fs::path stamps = session->layout.cache_dir() / "stamps";
  HookEffects effects{
      [&](const fs::path& path) { return watch_mtime(stamps, path); },
      [&](const CudaToml& project) { return trust.is_trusted(project); },
      [&](const Selection& selection) {
        return selection_extras(session->fs, session->env, session->layout, session->data, selection);
      },
      [&](const Selection& selection) { return check_selection_compiler(session->fs, session->env, session->data, selection); }};
  ShellDialect dialect = dialect_of(*parse_shell_kind(shell));
  HookResult result = run_hook(session->fs, session->env, session->cwd, session->layout, effects, dialect);
  for (const std::string& message : result.messages) print_note(message);
  std::fputs((result.code + render_fast_path(result.fast_path, dialect)).c_str(), stdout);
  return 0;
}

Result<int> run_init(const Session& session, const std::string& shell) {
  CUDAENV_TRY_ASSIGN(auto binary, user_program());
  std::fputs(init_script(*parse_shell_kind(shell), binary, session.layout.shims_dir()).c_str(), stdout);
  return 0;
}

struct ShellOptions {
  std::string version;
  bool unset = false;
  std::string shell_code;  // set by the shell function `cudaenv init` defines
};

Error needs_integration(const EnvMap& env) {
  std::string shell = fs::path(env_get(env, "SHELL").value_or("bash")).filename().string();
  std::string setup = shell == "fish"  ? "add `cudaenv init fish | source` to ~/.config/fish/config.fish"
                      : shell == "zsh" ? "add `eval \"$(cudaenv init zsh)\"` to ~/.zshrc"
                                       : "add `eval \"$(cudaenv init bash)\"` to ~/.bashrc";
  return make_error("`cudaenv shell` changes the shell it runs in, so it needs the shell integration",
                    setup + " and open a new shell (or use `cudaenv exec` / CUDAENV_VERSION=... for one command)");
}

Result<int> run_shell(const Session& session, const ShellOptions& options) {
  bool fish = options.shell_code == "fish";
  if (options.version.empty() && !options.unset) {
    auto current = env_get(session.env, kVersionSetting.variable);
    if (!current) return make_error("no shell version set", "set one with `cudaenv shell 12.4`");
    std::string shown = terminal_safe(*current);
    std::printf("%s\n",
                (options.shell_code.empty() ? shown : "echo " + (fish ? fish_quote(shown) : posix_quote(shown)) + ";").c_str());
    return 0;
  }
  if (options.shell_code.empty()) return needs_integration(session.env);
  if (options.unset) {
    std::printf(fish ? "set -e -g CUDAENV_VERSION;\n" : "unset CUDAENV_VERSION;\n");
    return 0;
  }
  CUDAENV_TRY(session.resolve_argument(options.version, "shell"));
  std::fputs(
      render_exports({{kVersionSetting.variable, options.version}}, fish ? ShellDialect::fish : ShellDialect::posix).c_str(),
      stdout);
  return 0;
}

Result<fs::path> project_file_argument(const Session& session, const std::string& file, const char* command) {
  if (!file.empty()) return session.cwd / file;
  if (auto found = find_project_file(session.fs, session.cwd)) return *found;
  return make_error("no cuda.toml in " + session.cwd.string() + " or above",
                    std::string("give its path: cudaenv ") + command + " path/to/cuda.toml");
}

bool is_lock_file(const fs::path& file) { return file.filename() == kLockFileName; }

// The files one `trust` covers: a cuda.toml and the cuda.lock beside it, since its [env] and the
// servers its lock names are one decision about one repository; or a cuda.lock given alone.
std::vector<fs::path> trusted_together(const fs::path& file) {
  std::vector<fs::path> files{file};
  fs::path lock = file.parent_path() / kLockFileName;
  std::error_code ec;
  if (!is_lock_file(file) && fs::exists(lock, ec)) files.push_back(lock);
  return files;
}

// `trust` (allow) and `untrust`: the same file argument, opposite records.
Result<int> run_trust(const Session& session, const std::string& file, bool allow) {
  CUDAENV_TRY_ASSIGN(auto path, project_file_argument(session, file, allow ? "trust" : "untrust"));
  TrustStore store(session.layout.trust_dir());
  for (const fs::path& each : trusted_together(path)) {
    bool lock = is_lock_file(each);
    if (allow) {
      CUDAENV_TRY_ASSIGN(auto trusted, store.trust(each));
      print_note("trusted " + trusted.string() +
                 (lock ? ": `cudaenv install --locked` may fetch from the servers it names until the file changes"
                       : ": its [env] is applied until the file changes"));
      continue;
    }
    CUDAENV_TRY_ASSIGN(auto removed, store.untrust(each));
    if (removed) {
      print_note("untrusted " + each.string() +
                 (lock ? ": `cudaenv install --locked` fetches only from NVIDIA, PyPI and the places you configure again"
                       : ": its [env] is no longer applied"));
    } else if (each == path) {
      print_note(each.string() + " was not trusted");
    }
  }
  return 0;
}

CommandHandler configure_trust_command(CLI::App& command, bool allow) {
  auto file = std::make_shared<std::string>();
  command.add_option("file", *file,
                     "The cuda.toml, with the cuda.lock beside it, or a cuda.lock (default: the nearest cuda.toml)");
  return [file, allow](const Setup& setup) { return run_trust(setup.session(), *file, allow); };
}

}  // namespace

CommandHandler configure_init(CLI::App& command) {
  auto shell = std::make_shared<std::string>();
  command.add_option("shell", *shell, "bash, zsh or fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  command.footer("Set-up: eval \"$(cudaenv init bash)\" in ~/.bashrc (zsh: ~/.zshrc); fish: cudaenv init fish | source");
  return [shell](const Setup& setup) { return run_init(setup.session(), *shell); };
}

CommandHandler configure_hook_env(CLI::App& command) {
  command.group("");  // hidden: the prompt hook calls it
  auto shell = std::make_shared<std::string>();
  command.add_option("--shell", *shell, "bash, zsh or fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  return [shell](const Setup&) { return run_hook_env(*shell); };
}

CommandHandler configure_shell(CLI::App& command) {
  auto options = std::make_shared<ShellOptions>();
  command.add_option("version", options->version, "Version for this shell (no argument: show it)");
  command.add_flag("--unset", options->unset, "Go back to cuda.toml / the default");
  command.add_option("--shell-code", options->shell_code, "Print code for this shell to evaluate")
      ->check(CLI::IsMember({"bash", "zsh", "fish"}))
      ->group("");
  return [options](const Setup& setup) { return run_shell(setup.session(), *options); };
}

CommandHandler configure_trust(CLI::App& command) { return configure_trust_command(command, true); }

CommandHandler configure_untrust(CLI::App& command) { return configure_trust_command(command, false); }

}  // namespace cudaenv
