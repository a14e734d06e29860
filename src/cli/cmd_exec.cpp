// `exec` and `env`: the active toolkit's environment, for one command or for a shell.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "core/hook_state.h"
#include "core/settings_table.h"
#include "core/toolkit_env.h"
#include "doctor/host_compiler.h"
#include "shell/ci_env.h"
#include "shell/hook.h"
#include "shell/trust.h"
#include "torch/selection_extras.h"
#include "util/environment.h"
#include "util/output.h"
#include "util/process.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// The toolkit's environment with its extras, plus the cuda.toml's [env] when trusted (said once
// if not); an error where the project's host compiler cannot build with the toolkit.
Result<EnvChange> active_env_change(const Session& session, const Selection& selection) {
  CUDAENV_TRY(check_selection_compiler(session.fs, session.env, session.data, selection));
  TrustStore trust(session.layout.trust_dir());
  std::string notice;
  CUDAENV_TRY_ASSIGN(auto extras, selection_extras(session.fs, session.env, session.layout, session.data, selection));
  EnvChange change = checked_env_change(
      selection, [&](const CudaToml& project) { return trust.is_trusted(project); }, notice, extras);
  if (!notice.empty()) print_note(notice);
  return change;
}

Result<int> run_exec(const Session& session, const std::string& cuda, const std::vector<std::string>& command) {
  if (command.empty()) return make_error("no command given", "e.g. cudaenv exec -- nvcc --version", ErrorKind::usage);
  std::optional<std::string> given;
  if (!cuda.empty()) {
    CUDAENV_TRY(check_version_argument(cuda));
    given = cuda;
  }
  CUDAENV_TRY_ASSIGN(auto selection, session.select(given));
  // Built on the environment before the shell hook, so the project's toolkit the hook put
  // first does not shadow the one selected here (or the system's).
  EnvMap env = without_hook_changes(session.env);
  // Shims the command runs must pick the same toolkit.
  if (given) env[kVersionSetting.variable] = *given;
  CUDAENV_TRY_ASSIGN(auto change, active_env_change(session, selection));
  apply_env_change(change, env);
  std::filesystem::path program = command[0];
  if (command[0].find('/') == std::string::npos) {
    auto found = find_on_path(session.fs, env, command[0], session.layout.shims_dir());
    if (!found) {
      return make_error(
          command[0] + ": command not found (CUDA " + selection.toolkit.name + ", " + selection.request.origin() + ")",
          "check the name, or `cudaenv which " + command[0] + "`", ErrorKind::program_not_found);
    }
    program = *found;
  }
  std::vector<std::string> args = command;
  std::vector<char*> argv = c_string_array(args);
  std::vector<std::string> env_strings = env_to_strings(env);
  std::vector<char*> envp = c_string_array(env_strings);
  std::fflush(stdout);
  ::execve(program.c_str(), argv.data(), envp.data());
  return exec_failure(program.string(), errno);
}

ShellDialect dialect_for(const std::string& shell, const EnvMap& env) {
  std::string name = shell;
  if (name.empty()) name = std::filesystem::path(env_get(env, "SHELL").value_or("bash")).filename().string();
  if (name == "fish") return ShellDialect::fish;
  if (name == "json") return ShellDialect::json;
  return ShellDialect::posix;
}

// Appends to the file a GitHub Actions runner named in `variable`: the runner reads it after the
// step, so the protocol is to add lines, never to replace the file.
Status append_to_runner_file(const EnvMap& env, const char* variable, const std::string& text) {
  auto path = env_get(env, variable);
  if (!path || path->empty()) {
    return make_error(std::string(variable) + " is not set: --shell github writes to the files a GitHub Actions step is given",
                      "run it in a workflow step, or use --shell dotenv (KEY=VALUE lines) elsewhere", ErrorKind::usage);
  }
  std::FILE* file = std::fopen(path->c_str(), "a");
  if (!file) return make_error("cannot open " + *path + " (" + variable + "): " + std::strerror(errno));
  bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (std::fclose(file) != 0 || !written)
    return make_error("cannot write " + *path + " (" + variable + "): " + std::strerror(errno));
  return ok_status();
}

Result<int> write_ci_env(const std::string& shell, const EnvChange& change, const EnvMap& env) {
  if (shell == "dotenv") {
    CUDAENV_TRY_ASSIGN(auto text, render_dotenv(change, env));
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  GithubEnvText text = render_github_env(change, env);
  CUDAENV_TRY(append_to_runner_file(env, "GITHUB_ENV", text.env));
  CUDAENV_TRY(append_to_runner_file(env, "GITHUB_PATH", text.path));
  return 0;
}

Result<int> run_env(const Session& session, const Selection& selection, const std::string& shell) {
  CUDAENV_TRY_ASSIGN(auto change, active_env_change(session, selection));
  if (shell == "github" || shell == "dotenv") return write_ci_env(shell, change, session.env);
  auto values = changed_values(change, session.env);
  std::fputs(render_exports(values, dialect_for(shell, session.env)).c_str(), stdout);
  return 0;
}

}  // namespace

struct ExecOptions {
  std::string cuda;
  std::vector<std::string> command;
};

CommandHandler configure_exec(CLI::App& command) {
  auto options = std::make_shared<ExecOptions>();
  command.add_option("--cuda", options->cuda, "Run it with this CUDA version instead of the active one");
  command.add_option("command", options->command, "The command and its arguments, kept exactly as given")->allow_extra_args();
  command.footer("Example: cudaenv exec -- nvcc --version; cudaenv exec --cuda 12.4 -- make");
  return [options](const Setup& setup) { return run_exec(setup.session(), options->cuda, options->command); };
}

CommandHandler configure_env(CLI::App& command) {
  auto shell = std::make_shared<std::string>();
  command.add_option("--shell", *shell, "Output syntax (default: from $SHELL)")
      ->check(CLI::IsMember({"bash", "zsh", "fish", "json", "github", "dotenv"}));
  command.footer(
      "--shell github appends to $GITHUB_ENV and $GITHUB_PATH (GitHub Actions); --shell dotenv prints "
      "KEY=VALUE lines (GitLab's dotenv reports)");
  return [shell](const Setup& setup) { return run_env(setup.session(), setup.selection(), *shell); };
}

}  // namespace cudaenv
