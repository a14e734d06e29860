#include "cli/session.h"

#include "util/output.h"
#include "util/working_dir.h"

extern char** environ;

namespace cudaenv {

Result<Session> Session::from_process() {
  Session session;
  session.env = env_from_environ(environ);
  auto cwd = logical_working_dir(session.env);
  if (!cwd) return cwd.take_error();
  session.cwd = std::move(cwd.value());
  auto layout = layout_from_env(session.env);
  if (!layout) return layout.take_error();
  session.layout = std::move(layout.value());
  session.data = DataFiles::find(session.env);
  return session;
}

Result<Selection> Session::select(const ToolkitIndex& toolkits, const std::optional<std::string>& given) const {
  auto selection = select_toolkit(fs, env, cwd, layout, toolkits, given);
  if (selection) {
    for (const std::string& warning : selection->warnings) print_warning(warning);
  }
  return selection;
}

}  // namespace cudaenv
