#pragma once
// What `cudaenv hook-env` prints when the prompt's fast path found something changed:
// undo what the hook applied before, select again, apply, and remember what it owns.

#include <functional>
#include <string>
#include <vector>

#include "core/hook_state.h"
#include "core/layout.h"
#include "core/toolkit_env.h"
#include "shell/fast_path.h"
#include "util/environment.h"
#include "util/file_system.h"

namespace cudaenv {

// The disk the hook consults besides reading files: mtime stamps and trust records; and what
// a selection needs from above this layer: its extras (uv's torch backend) and the verdict on
// the project's host compiler. Without them, neither.
struct HookEffects {
  std::function<Watch(const fs::path&)> watch;
  std::function<bool(const CudaToml&)> is_trusted;
  std::function<Result<SelectionExtras>(const Selection&)> extras = {};
  std::function<Status(const Selection&)> check_compiler = {};
};

struct HookResult {
  std::string code;                   // shell code for the shell to evaluate
  std::vector<std::string> messages;  // lines for stderr
  FastPath fast_path;                 // what the next prompts check (render_fast_path)
};

// `env` is the shell's environment (with __CUDAENV_STATE), `cwd` its $PWD.
HookResult run_hook(const FileSystemView& fs, const EnvMap& env, const fs::path& cwd, const Layout& layout,
                    const HookEffects& effects, ShellDialect dialect);

// The [env] entries of the selection's cuda.toml when `trusted`, after the toolkit's
// own and `extras`: what the hook, `exec` and `env` apply (the shim stays minimal and skips
// [env] and the extras).
EnvChange project_env_change(const Selection& selection, bool trusted, const SelectionExtras& extras);

// "cudaenv: /p/cuda.toml sets [env] (A, B), not applied: ..." for an untrusted file.
std::string untrusted_notice(const CudaToml& project);

// project_env_change() asking `is_trusted` only when the file has [env]; `notice` gets
// untrusted_notice() when it is withheld. What `exec` and `env` apply.
EnvChange checked_env_change(const Selection& selection, const std::function<bool(const CudaToml&)>& is_trusted,
                             std::string& notice, const SelectionExtras& extras);

}  // namespace cudaenv
