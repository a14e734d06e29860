#include <cstdio>
#include <exception>

#include "cli/command.h"
#include "cli/output.h"
#include "util/edit_distance.h"

#ifndef CUDAENV_VERSION_STRING
#define CUDAENV_VERSION_STRING "0.0.0"
#endif

namespace cudaenv {

namespace {

// CLI11 would say "arguments were not expected"; a typo deserves a suggestion.
std::optional<Error> unknown_command_error(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  std::vector<std::string> names;
  for (const Command& command : command_table()) {
    if (names.emplace_back(command.name) == argv[1]) return std::nullopt;
  }
  std::string hint = "run `cudaenv --help` for the list of commands";
  if (auto guess = closest_word(argv[1], names)) hint = "did you mean `cudaenv " + *guess + "`?";
  return make_error(std::string("unknown command '") + argv[1] + "'", hint, 2);
}

int run_parsed(CLI::App& app, int argc, char** argv,
               const std::vector<std::pair<CLI::App*, CommandHandler>>& handlers) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::string where = "cudaenv";
    for (CLI::App* sub : app.get_subcommands()) where += " " + sub->get_name();
    print_error(make_error(e.what(), "run `" + where + " --help` for usage"));
    return 2;
  }
  for (const auto& [command, handler] : handlers) {
    if (!command->parsed()) continue;
    Result<int> status = handler();
    if (status) return *status;
    print_error(status.error());
    return status.error().exit_code;
  }
  std::fputs(app.help().c_str(), stdout);
  return 0;
}

}  // namespace

int run_cli(int argc, char** argv) {
  if (auto error = unknown_command_error(argc, argv)) {
    print_error(*error);
    return error->exit_code;
  }
  CLI::App app{"cudaenv: CUDA toolkits side by side, one per project.", "cudaenv"};
  app.set_version_flag("--version", "cudaenv " CUDAENV_VERSION_STRING);
  app.require_subcommand(0, 1);
  std::vector<std::pair<CLI::App*, CommandHandler>> handlers;
  for (const Command& command : command_table()) {
    CLI::App* sub = app.add_subcommand(command.name, command.summary);
    handlers.emplace_back(sub, command.configure(*sub));
  }
  try {
    return run_parsed(app, argc, argv, handlers);
  } catch (const std::exception& e) {
    print_error(make_error(std::string("internal error: ") + e.what(),
                           "please report this with the command you ran"));
    return 1;
  }
}

}  // namespace cudaenv
