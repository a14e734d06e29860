#include "core/selection.h"

#include "core/settings_table.h"
#include "util/strings.h"

namespace cudaenv {

std::string Request::origin() const {
  switch (kind) {
    case OriginKind::argument: return "given as an argument";
    case OriginKind::environment: return "set by CUDAENV_VERSION";
    case OriginKind::project_file:
    case OriginKind::global_file: return "set by " + file.string();
    case OriginKind::fallback: return "no version set; falling back to the system toolkit";
  }
  return {};
}

std::optional<fs::path> find_project_file(const FileSystemView& fs, const fs::path& dir) {
  fs::path current = dir.lexically_normal();
  while (true) {
    fs::path candidate = current / kProjectFileName;
    // Anything but a folder counts, so a FIFO or device named cuda.toml is an error
    // from read_file, not silently skipped.
    EntryKind kind = fs.kind(candidate);
    if (kind == EntryKind::file || kind == EntryKind::other) return candidate;
    if (!current.has_relative_path()) return std::nullopt;
    current = current.parent_path();
  }
}

Result<std::optional<CudaToml>> load_project(const FileSystemView& fs, const fs::path& cwd) {
  auto file = find_project_file(fs, cwd);
  if (!file) return std::optional<CudaToml>{};
  CUDAENV_TRY_ASSIGN(auto text, fs.read_file(*file));
  CUDAENV_TRY_ASSIGN(auto parsed, parse_cuda_toml(*file, text));
  return std::optional<CudaToml>(std::move(parsed));
}

static Result<std::optional<std::string>> read_global_version(const FileSystemView& fs, const fs::path& file) {
  if (fs.kind(file) == EntryKind::missing) return std::optional<std::string>{};
  CUDAENV_TRY_ASSIGN(auto text, fs.read_file(file));
  for (const std::string& line : split(text, '\n')) {
    std::string_view value = trim(line);
    if (!value.empty() && value[0] != '#') return std::optional<std::string>(std::string(value));
  }
  return std::optional<std::string>{};
}

static Error not_a_version_error(const Request& request) {
  return make_error("'" + request.value + "' (" + request.origin() + ") is not a version",
                    "use a version such as 12.1 or 12.1.1, 'system', or a name given to `cudaenv add --as`");
}

static Result<Request> validated(Request request) {
  if (is_valid_version_request(request.value)) return request;
  return not_a_version_error(request);
}

Result<Request> select_request(const FileSystemView& fs, const EnvMap& env, const Layout& layout,
                               const std::optional<CudaToml>& project) {
  if (auto value = env_get(env, kVersionSetting.variable)) {
    return validated(Request{*value, OriginKind::environment, {}});
  }
  if (project && !project->version.empty()) return Request{project->version, OriginKind::project_file, project->path};
  fs::path global = layout.global_version_file();
  CUDAENV_TRY_ASSIGN(auto value, read_global_version(fs, global));
  if (value) return validated(Request{*value, OriginKind::global_file, global});
  return Request{"system", OriginKind::fallback, {}};
}

std::optional<Toolkit> match_toolkit(const std::string& request, const ToolkitIndex& toolkits) {
  if (auto exact = toolkits.find(request)) return exact;
  auto wanted = parse_version(request);
  if (!wanted) return std::nullopt;
  return toolkits.newest_match(*wanted);
}

// The command that asks for `version` where `request` asked for its own.
static std::string suggestion_for(const Request& request, const std::string& version) {
  switch (request.kind) {
    case OriginKind::argument: return "cudaenv " + request.command + " " + version;
    case OriginKind::environment: return "cudaenv shell " + version;
    case OriginKind::global_file: return "cudaenv global " + version;
    case OriginKind::project_file:
    case OriginKind::fallback: break;
  }
  return "cudaenv use " + version;
}

Error not_installed_error(const Request& request, const std::vector<Toolkit>& toolkits) {
  if (!is_valid_version_request(request.value)) return not_a_version_error(request);
  std::vector<std::string> names;
  std::vector<Version> versions;
  std::vector<std::string> version_names;
  for (const Toolkit& toolkit : toolkits) {
    names.push_back(toolkit.name);
    if (toolkit.version) {
      versions.push_back(*toolkit.version);
      version_names.push_back(toolkit.name);
    }
  }
  std::string hint = names.empty() ? "no toolkits are installed yet" : "installed: " + join(names, ", ");
  auto wanted = parse_version(request.value);
  if (wanted) {
    // Removing another version than the one asked for is never the fix.
    auto nearest = request.command == "uninstall" ? std::nullopt : nearest_version(*wanted, versions);
    if (nearest) {
      const std::string& name = version_names[*nearest];
      // Code built with one CUDA major does not mix with another's libraries: say so.
      int major = versions[*nearest].major();
      std::string other_major = major == wanted->major()
                                    ? ""
                                    : ", but that is CUDA " + std::to_string(major) + ", not " + std::to_string(wanted->major());
      hint += "\nnearest match: " + name + other_major + " (`" + suggestion_for(request, name) + "`)";
    }
    if (request.command != "uninstall") hint += "\nto install it: cudaenv install " + request.value;
  } else {
    hint += "\nto register a toolkit under that name: cudaenv add PATH --as " + request.value;
  }
  return make_error("CUDA " + request.value + " is not installed (" + request.origin() + ")", hint);
}

Result<Toolkit> resolve_request(const FileSystemView& fs, const EnvMap& env, const Layout& layout, const Request& request,
                                const ToolkitIndex& toolkits) {
  // Whatever its origin, a request is a name, never a path (`cudaenv prefix ../../etc`).
  CUDAENV_TRY(validated(request));
  if (request.value == "system") {
    if (auto system = find_system_toolkit(fs, env, layout.shims_dir())) return *system;
    return make_error("no system CUDA toolkit: no nvcc on PATH and no /usr/local/cuda (" + request.origin() + ")",
                      "install one with `cudaenv install 12.4 && cudaenv global 12.4`, or register one with "
                      "`cudaenv add /path/to/cuda`");
  }
  auto toolkit = match_toolkit(request.value, toolkits);
  if (!toolkit) return not_installed_error(request, toolkits.all());
  if (!toolkit->present) {
    return make_error("CUDA " + toolkit->name + " (" + request.origin() + ") points to " + toolkit->home.string() +
                          ", which has no bin/ folder any more",
                      "re-register it with `cudaenv add PATH --as " + toolkit->name +
                          "` or remove it with "
                          "`cudaenv uninstall " +
                          toolkit->name + "`");
  }
  return *toolkit;
}

SelectionOutcome select_or_fail(const FileSystemView& fs, const EnvMap& env, const fs::path& cwd, const Layout& layout,
                                const ToolkitIndex& toolkits, const std::optional<std::string>& given) {
  Selection selection;
  auto project = load_project(fs, cwd);
  if (project) {
    selection.project = std::move(project.value());
  } else if (!given && !env_get(env, kVersionSetting.variable)) {
    return FailedSelection{project.take_error(), std::nullopt};
  } else {
    // The version is decided elsewhere, so a broken cuda.toml only costs its arch list.
    selection.warnings.push_back(project.error().message);
  }
  auto request = given ? validated(Request{*given, OriginKind::argument, {}, "exec --cuda"})
                       : select_request(fs, env, layout, selection.project);
  if (!request) return FailedSelection{request.take_error(), std::nullopt};
  selection.request = std::move(request.value());
  auto toolkit = resolve_request(fs, env, layout, selection.request, toolkits);
  if (!toolkit) return FailedSelection{toolkit.take_error(), std::move(selection.request)};
  selection.toolkit = std::move(toolkit.value());
  if (selection.project) {
    for (const std::string& warning : selection.project->warnings) selection.warnings.push_back(warning);
  }
  return selection;
}

Result<Selection> select_toolkit(const FileSystemView& fs, const EnvMap& env, const fs::path& cwd, const Layout& layout,
                                 const ToolkitIndex& toolkits, const std::optional<std::string>& given) {
  SelectionOutcome outcome = select_or_fail(fs, env, cwd, layout, toolkits, given);
  if (auto* failed = std::get_if<FailedSelection>(&outcome)) return std::move(failed->error);
  return std::get<Selection>(std::move(outcome));
}

Result<Selection> select_toolkit(const FileSystemView& fs, const EnvMap& env, const fs::path& cwd, const Layout& layout,
                                 const std::optional<std::string>& given) {
  return select_toolkit(fs, env, cwd, layout, ToolkitIndex(fs, layout), given);
}

}  // namespace cudaenv
