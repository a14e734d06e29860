// Read-only commands about the selection: current, versions, which, prefix.
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/session.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

std::string toolkit_json(const Toolkit& toolkit) {
  return "\"name\": " + json_quote(toolkit.name) + ", \"version\": " +
         (toolkit.version ? json_quote(toolkit.version->str()) : std::string("null")) +
         ", \"prefix\": " + json_quote(toolkit.home.string()) + ", \"source\": " +
         json_quote(source_label(toolkit.source)) + ", \"registered\": " + (toolkit.registered ? "true" : "false");
}

std::string request_json(const Request& request) {
  return "\"request\": " + json_quote(request.value) + ", \"origin\": " + json_quote(request.origin()) +
         ", \"origin_file\": " + (request.file.empty() ? std::string("null") : json_quote(request.file.string()));
}

Result<int> run_current(const Selection& selection, bool json) {
  if (json) {
    std::printf("{%s, %s}\n", toolkit_json(selection.toolkit).c_str(), request_json(selection.request).c_str());
  } else if (selection.toolkit.source == ToolkitSource::system) {
    std::printf("system (%s; %s)\n", terminal_safe(selection.toolkit.home.string()).c_str(),
                terminal_safe(selection.request.origin()).c_str());
  } else {
    std::printf("%s (%s)\n", terminal_safe(selection.toolkit.name).c_str(), terminal_safe(selection.request.origin()).c_str());
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
  if (toolkit.source == ToolkitSource::system_root) text += " (shared: " + toolkit.home.parent_path().string() + ")";
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
    std::printf("[");
    for (size_t i = 0; i < toolkits.size(); ++i) {
      std::printf("%s\n  {%s, \"present\": %s, \"active\": %s", i ? "," : "", toolkit_json(toolkits[i]).c_str(),
                  toolkits[i].present ? "true" : "false", is_active(toolkits[i]) ? "true" : "false");
      if (is_active(toolkits[i])) std::printf(", %s", request_json(selection->request).c_str());
      std::printf("}");
    }
    std::printf("%s]\n", toolkits.empty() ? "" : "\n");
    return 0;
  }
  for (const Toolkit& toolkit : toolkits) {
    std::string line = toolkit.source == ToolkitSource::system ? "system (" + toolkit.home.string() + ")" : describe(toolkit);
    if (is_active(toolkit)) std::printf("* %s (%s)\n", terminal_safe(line).c_str(), terminal_safe(selection->request.origin()).c_str());
    else std::printf("  %s\n", terminal_safe(line).c_str());
  }
  if (toolkits.empty()) print_note("no toolkits yet: `cudaenv install 12.4` or `cudaenv add --scan`");
  return 0;
}

Error missing_program_error(const Session& session, const Selection& selection, const std::string& program) {
  auto having = toolkits_with_program(session.fs, session.toolkits(), program);
  std::string hint = having.empty() ? "no installed toolkit has it"
                                    : "it is in: " + join(having, ", ") + " (e.g. `cudaenv shell " + having.back() + "`)";
  return make_error(program + " is not part of CUDA " + selection.toolkit.name + " (" + selection.request.origin() + ")",
                    hint, 127);
}

Result<int> run_which(const Session& session, const Selection& selection, const std::string& program) {
  std::optional<std::filesystem::path> path;
  if (selection.toolkit.source == ToolkitSource::system) {
    path = find_on_path(session.fs, session.env, program, session.layout.shims_dir());
  } else if (session.fs.is_executable(selection.toolkit.bin_dir() / program)) {
    path = selection.toolkit.bin_dir() / program;
  }
  if (!path) return missing_program_error(session, selection, program);
  std::printf("%s\n", path->c_str());
  return 0;
}

Result<int> run_prefix(const Session& session, const std::string& version) {
  if (version.empty()) {
    auto selection = session.select();
    if (!selection) return selection.take_error();
    std::printf("%s\n", selection->toolkit.home.c_str());
    return 0;
  }
  auto toolkit = resolve_request(session.fs, session.env, session.layout,
                                 Request{version, OriginKind::argument, {}, "prefix"}, session.toolkit_index());
  if (!toolkit) return toolkit.take_error();
  std::printf("%s\n", toolkit->home.c_str());
  return 0;
}

}  // namespace

CommandHandler configure_current(CLI::App& command) {
  auto json = std::make_shared<bool>(false);
  command.add_flag("--json", *json, "Print a JSON object");
  return [json](const Setup& setup) { return run_current(setup.selection(), *json); };
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
