#include "cli/session.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli/output.h"

extern char** environ;

namespace cudaenv {

Result<Session> Session::from_process() {
  Session session;
  session.env = env_from_environ(environ);
  std::error_code ec;
  session.cwd = std::filesystem::current_path(ec);
  if (ec) return make_error("cannot read the current directory: " + ec.message(), "cd into an existing directory");
  // Keep the logical path the shell shows when it names this directory, as pyenv does.
  if (auto pwd = env_get(session.env, "PWD"); pwd && std::filesystem::equivalent(*pwd, session.cwd, ec)) {
    session.cwd = *pwd;
  }
  auto layout = layout_from_env(session.env);
  if (!layout) return layout.take_error();
  session.layout = std::move(layout.value());
  return session;
}

Result<Selection> Session::select() const {
  auto selection = select_toolkit(fs, env, cwd, layout);
  if (selection) {
    for (const std::string& warning : selection->warnings) print_warning(warning);
  }
  return selection;
}

}  // namespace cudaenv
