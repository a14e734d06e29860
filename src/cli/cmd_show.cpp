// Read-only commands about the selection: current, versions, which, prefix.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "core/program.h"
#include "util/json_reader.h"
#include "util/output.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

using json = nlohmann::ordered_json;

json toolkit_json(const Toolkit& toolkit) {
  return {{"name", toolkit.name},
          {"version", toolkit.version ? json(toolkit.version->str()) : json(nullptr)},
          {"prefix", toolkit.home.string()},
          {"source", source_label(toolkit.source)},
          {"registered", toolkit.registered}};
}

void add_request(json& object, const Request& request) {
  object["request"] = request.value;
  object["origin"] = request.origin();
  object["origin_file"] = request.file.empty() ? json(nullptr) : json(request.file.string());
}

// The selected target's name and origin; one that cannot be read is said, not fatal: `current`
// answers about the toolkit first.
std::optional<Setting> current_target(const Session& session, const Selection& selection) {
  std::optional<Setting> setting = target_setting(session.env, selection.project);
  if (!setting) return std::nullopt;
  if (auto loaded = select_target(session.fs, session.env, session.layout, selection.project); !loaded) {
    print_warning(loaded.error().message);
  }
  return setting;
}

Result<int> run_current(const Session& session, const Selection& selection, bool as_json) {
  std::optional<Setting> target = current_target(session, selection);
  if (as_json) {
    json current = toolkit_json(selection.toolkit);
    add_request(current, selection.request);
    current["target"] = target ? json{{"name", target->value}, {"origin", target->origin()}} : json(nullptr);
    std::fputs(json_text(current).c_str(), stdout);
    return 0;
  }
  if (selection.toolkit.source == ToolkitSource::system) {
    std::printf("system (%s; %s)\n", terminal_safe(selection.toolkit.home.string()).c_str(),
                terminal_safe(selection.request.origin()).c_str());
  } else {
    std::printf("%s (%s)\n", terminal_safe(selection.toolkit.name).c_str(), terminal_safe(selection.request.origin()).c_str());
  }
  if (target) {
    std::printf("target %s (set by %s)\n", terminal_safe(target->value).c_str(), terminal_safe(target->origin()).c_str());
  }
  return 0;
}

struct VersionsOptions {
  bool bare = false;
  bool json = false;
};

std::string describe(const Toolkit& toolkit) {
  std::string text = toolkit.name;
  if (toolkit.registered) text += " --> " + toolkit.home.string();
  if (toolkit.source == ToolkitSource::shared_root) text += " (shared: " + toolkit.home.parent_path().string() + ")";
  if (!toolkit.present) text += " (missing: no bin/ folder)";
  return text;
}

Result<int> run_versions(const Session& session, const VersionsOptions& options) {
  ToolkitIndex index = session.toolkit_index();
  std::vector<Toolkit> toolkits = index.all();
  if (options.bare) {
    for (const Toolkit& toolkit : toolkits) std::printf("%s\n", toolkit.name.c_str());
    return 0;
  }
  auto selection = session.select(index);  // the same listing: the folders are read once
  if (!selection) print_warning(selection.error().message);
  auto system = find_system_toolkit(session.fs, session.env, session.layout.shims_dir());
  if (system) toolkits.insert(toolkits.begin(), *system);
  auto is_active = [&](const Toolkit& toolkit) {
    return selection && selection->toolkit.name == toolkit.name && selection->toolkit.source == toolkit.source;
  };
  if (options.json) {
    json rows = json::array();
    for (const Toolkit& toolkit : toolkits) {
      json row = toolkit_json(toolkit);
      row["present"] = toolkit.present;
      row["active"] = is_active(toolkit);
      if (is_active(toolkit)) add_request(row, selection->request);
      rows.push_back(std::move(row));
    }
    std::fputs(json_text(rows).c_str(), stdout);
    return 0;
  }
  for (const Toolkit& toolkit : toolkits) {
    std::string line = toolkit.source == ToolkitSource::system ? "system (" + toolkit.home.string() + ")" : describe(toolkit);
    if (is_active(toolkit))
      std::printf("* %s (%s)\n", terminal_safe(line).c_str(), terminal_safe(selection->request.origin()).c_str());
    else std::printf("  %s\n", terminal_safe(line).c_str());
  }
  if (toolkits.empty()) print_note("no toolkits yet: `cudaenv install 12.4` or `cudaenv add --scan`");
  return 0;
}

Result<int> run_which(const Session& session, const Selection& selection, const std::string& program) {
  CUDAENV_TRY_ASSIGN(auto path, program_for_selection(session.fs, session.env, session.layout, selection, program));
  std::printf("%s\n", path.c_str());
  return 0;
}

Result<int> run_prefix(const Session& session, const std::string& version) {
  if (version.empty()) {
    CUDAENV_TRY_ASSIGN(auto selection, session.select());
    std::printf("%s\n", selection.toolkit.home.c_str());
    return 0;
  }
  CUDAENV_TRY_ASSIGN(auto toolkit, session.resolve_argument(version, "prefix"));
  std::printf("%s\n", toolkit.home.c_str());
  return 0;
}

}  // namespace

CommandHandler configure_current(CLI::App& command) {
  auto as_json = std::make_shared<bool>(false);
  command.add_flag("--json", *as_json, "Print a JSON object");
  return [as_json](const Setup& setup) { return run_current(setup.session(), setup.selection(), *as_json); };
}

CommandHandler configure_versions(CLI::App& command) {
  auto options = std::make_shared<VersionsOptions>();
  command.add_flag("--bare", options->bare, "Only the names, one per line");
  command.add_flag("--json", options->json, "Print a JSON array");
  return [options](const Setup& setup) { return run_versions(setup.session(), *options); };
}

CommandHandler configure_which(CLI::App& command) {
  auto program = std::make_shared<std::string>();
  command.add_option("program", *program, "Program name, e.g. nvcc")->required();
  return [program](const Setup& setup) { return run_which(setup.session(), setup.selection(), *program); };
}

CommandHandler configure_prefix(CLI::App& command) {
  auto version = std::make_shared<std::string>();
  command.add_option("version", *version, "Version (default: the active one)");
  return [version](const Setup& setup) { return run_prefix(setup.session(), *version); };
}

}  // namespace cudaenv
