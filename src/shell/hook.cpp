#include "shell/hook.h"

#include "core/selection.h"
#include "core/settings_table.h"
#include "shell/env_diff.h"
#include "util/output.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

struct Outcome {
  EnvChange change;
  EnvChange toolkit_change;           // `change` without the project's [env]
  size_t env_entries = 0;             // how many [env] entries `change` applies
  std::string announced;              // toolkit and origin file; "" when none is selected
  std::string line;                   // "CUDA 12.1.1 (../cuda.toml)"
  bool quiet_start = false;           // a global or fallback choice needs no line at shell start
  std::vector<std::string> messages;  // notices shown once per change of what they are about
};

std::string origin_label(const Request& request, const fs::path& cwd) {
  switch (request.kind) {
    case OriginKind::project_file: return request.file.lexically_relative(cwd).string();
    case OriginKind::environment: return kVersionSetting.variable;
    case OriginKind::global_file: return "global default";
    case OriginKind::argument:
    case OriginKind::fallback: break;
  }
  return "no version set";
}

// Where the answer holds, and the paths whose change makes the fast path fail: every
// folder between $PWD and the project where a new cuda.toml would take over, the project
// file (with none, /cuda.toml), the global file when it may decide (a project file can pin
// nothing), and the versions folders (installs change what "12.1" means).
FastPath fast_path_for(const fs::path& cwd, const std::optional<fs::path>& project, const std::string& env_override,
                       const Layout& layout, const HookEffects& effects) {
  FastPath fast;
  fast.dir = cwd.string();
  fast.version_override = env_override;
  fast.scope = project ? project->parent_path() : cwd.root_path();
  for (fs::path dir = cwd.lexically_normal(); dir != fast.scope && dir.has_relative_path(); dir = dir.parent_path()) {
    fast.folders.push_back({dir / kProjectFileName, std::nullopt});
  }
  if (project) fast.fixed.push_back(effects.watch(*project));
  else fast.fixed.push_back({fast.scope / kProjectFileName, std::nullopt});
  if (env_override.empty()) fast.fixed.push_back(effects.watch(layout.global_version_file()));
  for (const fs::path& versions : layout.version_roots()) fast.fixed.push_back(effects.watch(versions));
  return fast;
}

// An error the prompt says and goes on past: its lines, tagged as a warning.
std::vector<std::string> warning_lines(const Error& error) {
  std::vector<std::string> lines = error_lines(error);
  lines.front().replace(0, std::string_view("cudaenv: error").size(), "cudaenv: warning");
  return lines;
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
  if (effects.check_compiler) {
    // Said, not refused: the prompt keeps the project's environment, as `exec` would not.
    if (Status compiler = effects.check_compiler(*selection); !compiler) {
      std::vector<std::string> lines = warning_lines(compiler.error());
      outcome.messages.insert(outcome.messages.end(), lines.begin(), lines.end());
    }
  }
  SelectionExtras extras;
  if (effects.extras) {
    // A target that cannot be read is said, and the prompt keeps the toolkit's environment.
    if (auto worked_out = effects.extras(*selection)) {
      extras = std::move(*worked_out);
    } else {
      std::vector<std::string> lines = warning_lines(worked_out.error());
      outcome.messages.insert(outcome.messages.end(), lines.begin(), lines.end());
    }
  }
  for (const fs::path& input : extras.inputs) watches.push_back(effects.watch(input));
  std::string notice;
  outcome.change = checked_env_change(*selection, effects.is_trusted, notice, extras);
  outcome.toolkit_change = selection_env_change(*selection, extras);
  outcome.env_entries = outcome.change.set.size() - outcome.toolkit_change.set.size();
  if (selection->project && !selection->project->env.empty()) watches.push_back(effects.watch(layout.trust_dir()));
  if (!notice.empty()) outcome.messages.push_back(notice);
  // Keyed on the origin file, not its relative label, so a cd within a project is silent.
  outcome.announced = selection->toolkit.name + "\t" + selection->request.origin();
  outcome.line = "CUDA " + selection->toolkit.name + " (" + origin_label(selection->request, cwd) + ")";
  outcome.quiet_start = selection->request.kind == OriginKind::global_file || selection->request.kind == OriginKind::fallback;
  return outcome;
}

// The mtimes of the files a notice is about (the fixed watches: the folders watched for
// a nearer cuda.toml differ from one subfolder to the next).
std::string stamps_of(const std::vector<Watch>& watches) {
  std::string key;
  for (const Watch& watch : watches) {
    if (watch.stamp) key += "\n" + watch.path.string() + "@" + watch.stamp->string();
  }
  return key;
}

bool quiet(const EnvMap& env) { return is_on(env_setting(kQuietSetting, env)); }

// The environment after applying `change` to `pristine`, and the records of what it owns.
struct Applied {
  EnvMap env;
  OwnedChange owned;
};

Applied apply_to(const EnvMap& pristine, const EnvChange& change) {
  Applied applied{pristine, {}};
  applied.owned = apply_owned(change, applied.env);
  return applied;
}

size_t state_size(const Outcome& outcome, const Applied& applied) {
  HookState state;
  state.announced = outcome.announced;
  state.notice_key = std::string(64, '0');  // a digest's length
  state.entries = applied.owned.entries;
  state.values = applied.owned.values;
  return format_state(state).size();
}

std::string kib(size_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; }

// The change whose record fits kStateLimit: all of it, else the toolkit's without the
// project's [env], else nothing, each step said once (it joins the notices).
Applied bounded(const EnvMap& pristine, Outcome& outcome, const std::optional<fs::path>& project) {
  Applied applied = apply_to(pristine, outcome.change);
  size_t needed = state_size(outcome, applied);
  if (needed <= kStateLimit) return applied;
  std::string limit = "__CUDAENV_STATE would need " + kib(needed) + " and the hook keeps it under " + kib(kStateLimit) +
                      " (the kernel refuses any environment string over 128 KiB)";
  if (outcome.env_entries > 0 && project) {
    applied = apply_to(pristine, outcome.toolkit_change);
    if (state_size(outcome, applied) <= kStateLimit) {
      std::string count = std::to_string(outcome.env_entries) + (outcome.env_entries == 1 ? " variable" : " variables");
      outcome.messages.push_back("cudaenv: the [env] of " + project->string() + " (" + count +
                                 ") is too large for the shell: " + limit + "; [env] not applied");
      outcome.messages.push_back("  keep [env] to a few variables, or give them to one command with `cudaenv exec`");
      return applied;
    }
  }
  outcome.messages.push_back("cudaenv: the toolkit's environment is too large for the shell: " + limit + "; nothing applied");
  outcome.announced.clear();
  return apply_to(pristine, EnvChange{});
}

}  // namespace

EnvChange project_env_change(const Selection& selection, bool trusted, const SelectionExtras& extras) {
  EnvChange change = selection_env_change(selection, extras);
  if (trusted && selection.project) {
    for (const auto& entry : selection.project->env) change.set.push_back(entry);
  }
  return change;
}

std::string untrusted_notice(const CudaToml& project) {
  constexpr size_t kNamesShown = 10;  // a file may hold thousands: the line stays a line
  std::vector<std::string> names;
  for (const auto& entry : project.env) {
    if (names.size() == kNamesShown) break;
    names.push_back(entry.first);
  }
  std::string more = project.env.size() > kNamesShown ? " and " + std::to_string(project.env.size() - kNamesShown) + " more" : "";
  return "cudaenv: " + project.path.string() + " sets [env] (" + join(names, ", ") + more +
         "), not applied: run `cudaenv trust` to allow it";
}

EnvChange checked_env_change(const Selection& selection, const std::function<bool(const CudaToml&)>& is_trusted,
                             std::string& notice, const SelectionExtras& extras) {
  bool has_env = selection.project && !selection.project->env.empty();
  bool trusted = !has_env || is_trusted(*selection.project);
  if (!trusted) notice = untrusted_notice(*selection.project);
  return project_env_change(selection, trusted, extras);
}

HookResult run_hook(const FileSystemView& fs, const EnvMap& env, const fs::path& cwd, const Layout& layout,
                    const HookEffects& effects, ShellDialect dialect) {
  auto state_text = env.find(kStateVariable);
  bool first_run = state_text == env.end();
  HookState old = parse_state(first_run ? "" : state_text->second);
  EnvMap pristine = without_hook_changes(env);

  HookResult result;
  std::string version_override = env_get(pristine, kVersionSetting.variable).value_or("");
  // Stamps are taken before the files are read, so an edit racing this run shows up
  // as a changed mtime at the next prompt instead of being missed.
  auto project = find_project_file(fs, cwd);
  result.fast_path = fast_path_for(cwd, project, version_override, layout, effects);
  // A target named in the shell changes the environment as CUDAENV_VERSION does.
  result.fast_path.target_override = env_get(pristine, kTargetSetting.variable).value_or("");
  bool nothing_requested = !project && version_override.empty() && fs.kind(layout.global_version_file()) == EntryKind::missing;
  Outcome outcome = decide(fs, pristine, cwd, layout, effects, nothing_requested, result.fast_path.fixed);
  Applied applied = bounded(pristine, outcome, project);

  HookState next;
  if (!outcome.messages.empty()) {
    // A digest: the notices may be long, and the state must stay small.
    next.notice_key = sha256_hex(join(outcome.messages, "\n") + stamps_of(result.fast_path.fixed));
    if (next.notice_key != old.notice_key) result.messages = outcome.messages;
  }
  next.announced = outcome.announced;
  bool silent_start = first_run && (outcome.quiet_start || outcome.announced.empty());
  if (next.announced != old.announced && !silent_start && !quiet(env)) {
    result.messages.push_back(outcome.announced.empty() ? "cudaenv: no CUDA toolkit selected" : "cudaenv: " + outcome.line);
  }

  EnvMap& after = applied.env;
  next.entries = std::move(applied.owned.entries);
  next.values = std::move(applied.owned.values);
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
