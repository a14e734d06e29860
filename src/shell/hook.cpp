#include "shell/hook.h"

#include "core/selection.h"
#include "shell/env_diff.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

struct Outcome {
  EnvChange change;
  std::string announced;              // toolkit and origin file; "" when none is selected
  std::string line;                   // "CUDA 12.1.1 (../cuda.toml)"
  bool quiet_start = false;           // a global or fallback choice needs no line at shell start
  std::vector<std::string> messages;  // notices shown once per change of what they are about
};

std::string origin_label(const Request& request, const fs::path& cwd) {
  switch (request.kind) {
    case OriginKind::project_file: return request.file.lexically_relative(cwd).string();
    case OriginKind::environment: return "CUDAENV_VERSION";
    case OriginKind::global_file: return "global default";
    case OriginKind::argument:
    case OriginKind::fallback: break;
  }
  return "no version set";
}

std::vector<std::string> error_lines(const Error& error) {
  std::vector<std::string> lines{"cudaenv: error: " + error.message};
  if (!error.hint.empty()) {
    for (const std::string& line : split(error.hint, '\n')) lines.push_back("  " + line);
  }
  return lines;
}

// The paths whose change makes the fast path fail: every folder between $PWD and the
// project where a new cuda.toml would take over, the project file, the global file when
// it may decide (a project file can pin nothing), and the versions folders (installs
// change what "12.1" means).
std::vector<Watch> watches_for(const fs::path& cwd, const std::optional<fs::path>& project, bool env_override,
                               const Layout& layout, const HookEffects& effects) {
  std::vector<Watch> watches;
  fs::path stop = project ? project->parent_path() : fs::path();
  for (fs::path dir = cwd.lexically_normal(); dir != stop; dir = dir.parent_path()) {
    watches.push_back({dir / kProjectFileName, std::nullopt});
    if (!dir.has_relative_path()) break;
  }
  if (project) watches.push_back(effects.watch(*project));
  if (!env_override) watches.push_back(effects.watch(layout.global_version_file()));
  for (const fs::path& versions : layout.version_roots()) watches.push_back(effects.watch(versions));
  return watches;
}

Outcome decide(const FileSystemView& fs, const EnvMap& pristine, const fs::path& cwd, const Layout& layout,
               const HookEffects& effects, bool nothing_requested, std::vector<Watch>& watches) {
  Outcome outcome;
  auto selection = select_toolkit(fs, pristine, cwd, layout);
  if (!selection) {
    if (!nothing_requested) outcome.messages = error_lines(selection.error());
    return outcome;
  }
  for (const std::string& warning : selection->warnings) outcome.messages.push_back("cudaenv: warning: " + warning);
  std::string notice;
  outcome.change = checked_env_change(*selection, effects.is_trusted, notice);
  if (selection->project && !selection->project->env.empty()) watches.push_back(effects.watch(layout.trust_dir()));
  if (!notice.empty()) outcome.messages.push_back(notice);
  // Keyed on the origin file, not its relative label, so a cd within a project is silent.
  outcome.announced = selection->toolkit.name + "\t" + selection->request.origin();
  outcome.line = "CUDA " + selection->toolkit.name + " (" + origin_label(selection->request, cwd) + ")";
  outcome.quiet_start = selection->request.kind == OriginKind::global_file || selection->request.kind == OriginKind::fallback;
  return outcome;
}

// The mtimes of the files a notice is about; the folders watched for a nearer
// cuda.toml differ from one subfolder to the next and are left out.
std::string stamps_of(const std::vector<Watch>& watches) {
  std::string key;
  for (const Watch& watch : watches) {
    if (watch.stamp) key += "\n" + watch.path.string() + "@" + watch.stamp->string();
  }
  return key;
}

bool quiet(const EnvMap& env) {
  auto value = env_get(env, "CUDAENV_QUIET");
  return value && *value != "0";
}

}  // namespace

EnvChange project_env_change(const Selection& selection, bool trusted) {
  EnvChange change = selection_env_change(selection);
  if (trusted && selection.project) {
    for (const auto& entry : selection.project->env) change.set.push_back(entry);
  }
  return change;
}

std::string untrusted_notice(const CudaToml& project) {
  std::vector<std::string> names;
  for (const auto& entry : project.env) names.push_back(entry.first);
  return "cudaenv: " + project.path.string() + " sets [env] (" + join(names, ", ") +
         "), not applied: run `cudaenv trust` to allow it";
}

EnvChange checked_env_change(const Selection& selection, const std::function<bool(const CudaToml&)>& is_trusted,
                             std::string& notice) {
  bool has_env = selection.project && !selection.project->env.empty();
  bool trusted = !has_env || is_trusted(*selection.project);
  if (!trusted) notice = untrusted_notice(*selection.project);
  return project_env_change(selection, trusted);
}

HookResult run_hook(const FileSystemView& fs, const EnvMap& env, const fs::path& cwd, const Layout& layout,
                    const HookEffects& effects, ShellDialect dialect) {
  auto state_text = env.find(kStateVariable);
  bool first_run = state_text == env.end();
  HookState old = parse_state(first_run ? "" : state_text->second);
  EnvMap pristine = revert_owned(env, old.entries, old.values);
  pristine.erase(kStateVariable);

  HookState next;
  next.dir = cwd.string();
  next.version_override = env_get(pristine, "CUDAENV_VERSION").value_or("");
  // Stamps are taken before the files are read, so an edit racing this run shows up
  // as a changed mtime at the next prompt instead of being missed.
  auto project = find_project_file(fs, cwd);
  next.watches = watches_for(cwd, project, !next.version_override.empty(), layout, effects);
  bool nothing_requested = !project && next.version_override.empty() &&
                           fs.kind(layout.global_version_file()) == EntryKind::missing;
  Outcome outcome = decide(fs, pristine, cwd, layout, effects, nothing_requested, next.watches);

  HookResult result;
  if (!outcome.messages.empty()) {
    next.notice_key = join(outcome.messages, "\n") + stamps_of(next.watches);
    if (next.notice_key != old.notice_key) result.messages = outcome.messages;
  }
  next.announced = outcome.announced;
  bool silent_start = first_run && (outcome.quiet_start || outcome.announced.empty());
  if (next.announced != old.announced && !silent_start && !quiet(env)) {
    result.messages.push_back(outcome.announced.empty() ? "cudaenv: no CUDA toolkit selected" : "cudaenv: " + outcome.line);
  }

  EnvMap after = pristine;
  OwnedChange owned = apply_owned(outcome.change, after);
  next.entries = std::move(owned.entries);
  next.values = std::move(owned.values);
  after[kStateVariable] = format_state(next);

  std::vector<std::string> names;
  for (const auto* entries : {&old.entries, &next.entries}) {
    for (const OwnedEntry& entry : *entries) names.push_back(entry.variable);
  }
  for (const auto* values : {&old.values, &next.values}) {
    for (const OwnedValue& value : *values) names.push_back(value.variable);
  }
  names.push_back(kStateVariable);
  result.code = render_env_update(env, after, names, dialect);
  return result;
}

}  // namespace cudaenv
