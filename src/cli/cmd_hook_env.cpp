// `cudaenv hook-env`, apart from the other shell commands so that cudaenv-hook, the static
// program the prompt runs, links no CLI11 (its static objects alone cost 48k instructions).
#include <cstdio>

#include "cli/commands.h"
#include "cli/session.h"
#include "shell/hook.h"
#include "shell/init_script.h"
#include "shell/stamps.h"
#include "shell/trust.h"
#include "util/output.h"

namespace cudaenv {

// Runs at a prompt: whatever goes wrong is said on stderr, and stdout stays code. It builds its
// own session (its table entry needs nothing) because a session that cannot be built, e.g. in
// a deleted folder, must stay silent here: the next cd fixes it, and a prompt must not spam.
int run_hook_env(const std::string& shell) {
  auto session = Session::from_process();
  if (!session) return 0;  // e.g. the folder was deleted; the next cd fixes it, no prompt spam
  TrustStore trust(session->layout.trust_dir());
  fs::path stamps = session->layout.cache_dir() / "stamps";
  HookEffects effects{[&](const fs::path& path) { return watch_mtime(stamps, path); },
                      [&](const CudaToml& project) { return trust.is_trusted(project); }};
  ShellDialect dialect = dialect_of(*parse_shell_kind(shell));
  HookResult result = run_hook(session->fs, session->env, session->cwd, session->layout, effects, dialect);
  for (const std::string& message : result.messages) print_note(message);
  std::fputs((result.code + render_fast_path(result.fast_path, dialect)).c_str(), stdout);
  return 0;
}

}  // namespace cudaenv
