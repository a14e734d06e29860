#include "cli/session.h"

#include "util/output.h"
#include "util/working_dir.h"

extern char** environ;

namespace cudaenv {

Result<Session> Session::from_process() {
  Session session;
  session.env = env_from_environ(environ);
  CUDAENV_TRY_ASSIGN(auto cwd, logical_working_dir(session.env));
  session.cwd = std::move(cwd);
  CUDAENV_TRY_ASSIGN(auto layout, layout_from_env(session.env));
  session.layout = std::move(layout);
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

Result<std::optional<SelectedTarget>> Session::selected_target() const {
  // A cuda.toml that cannot be read is the selection's error to report (doctor's finding, the
  // command's error), not a target's: without it, only CUDAENV_TARGET selects one.
  auto project = load_project(fs, cwd);
  return select_target(fs, env, layout, project ? *project : std::nullopt);
}

Status check_version_argument(const std::string& version) {
  if (is_valid_version_request(version)) return ok_status();
  return make_error("'" + version + "' is not a version", "use a version such as 12.1 or 12.1.1, or 'system'", ErrorKind::usage);
}

Result<Toolkit> Session::resolve_argument(const std::string& version, const std::string& command) const {
  CUDAENV_TRY(check_version_argument(version));
  return resolve_request(fs, env, layout, Request{version, OriginKind::argument, {}, command}, toolkit_index());
}

}  // namespace cudaenv
