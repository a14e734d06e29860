#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>

#include <CLI/CLI.hpp>

#include "cli/command.h"
#include "cli/session.h"
#include "util/output.h"
#include "util/strings.h"

#ifndef CUDAENV_VERSION_STRING
#define CUDAENV_VERSION_STRING "0.0.0"
#endif

namespace cudaenv {

namespace {

// What people used to pyenv, mise or asdf type, and what cudaenv calls it.
std::optional<std::string> other_tools_word(std::string_view word) {
  static const std::map<std::string_view, std::string_view> words = {
      {"local", "use"},    {"ls", "versions"},     {"list", "versions"}, {"ls-remote", "list-remote"}, {"activate", "init"},
      {"where", "prefix"}, {"version", "current"}, {"rm", "uninstall"},  {"remove", "uninstall"},
  };
  auto found = words.find(word);
  if (found == words.end()) return std::nullopt;
  return std::string(found->second);
}

const Command* find_command(std::string_view name) {
  for (const Command& command : command_table()) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

// CLI11 would say "arguments were not expected"; a typo deserves a suggestion.
std::optional<Error> unknown_command_error(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  std::string word = argv[1];
  std::vector<std::string> names;
  for (const Command& command : command_table()) {
    if (names.emplace_back(command.name) == word) return std::nullopt;
  }
  std::string hint = "run `cudaenv --help` for the list of commands";
  if (word == "help") {
    hint = "did you mean `cudaenv " + (argc > 2 ? std::string(argv[2]) + " --help" : std::string("--help")) + "`?";
  } else if (auto guess = other_tools_word(word)) {
    hint = "did you mean `cudaenv " + *guess + "`?";
  } else if (auto typo = closest_word(word, names)) {
    hint = "did you mean `cudaenv " + *typo + "`?";
  }
  return make_error("unknown command '" + word + "'", hint, ErrorKind::usage);
}

// CLI11 reorders the words after a command's own options and keeps or drops a `--` as it
// sees fit; a command that runs a program gets `--` where its own options end (unless the
// user wrote one there), so everything after it is the program's argv, byte for byte.
std::vector<std::string> with_end_of_options(const CLI::App& command, std::vector<std::string> args) {
  std::size_t next = 2;  // past "cudaenv COMMAND"
  while (next < args.size() && args[next] != "--") {
    const std::string& word = args[next];
    const CLI::Option* option =
        word.size() > 1 && word[0] == '-' ? command.get_option_no_throw(word.substr(0, word.find('='))) : nullptr;
    if (!option) {
      args.insert(args.begin() + static_cast<std::ptrdiff_t>(next), "--");
      break;
    }
    bool value_follows = option->get_items_expected_max() > 0 && word.find('=') == std::string::npos;
    next += value_follows ? 2 : 1;
  }
  return args;
}

// A command made of subcommands (mirror), given none of them: the error lists them, and
// for a word that is none of them, the nearest.
std::optional<Error> subcommand_error(CLI::App& command, const std::string& where, const std::vector<std::string>& words) {
  std::vector<std::string> names;
  for (CLI::App* sub : command.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->parsed()) return std::nullopt;
    names.push_back(sub->get_name());
  }
  if (names.empty()) return std::nullopt;
  std::string listed = "`" + where + "` has: " + join(names, ", ");
  auto name = std::find(words.begin(), words.end(), command.get_name());
  if (name == words.end() || name + 1 == words.end() || (*(name + 1))[0] == '-') {
    return make_error("`" + where + "` needs a subcommand", listed, ErrorKind::usage);
  }
  std::string hint = listed;
  if (auto guess = closest_word(*(name + 1), names)) hint = "did you mean `" + where + " " + *guess + "`?\n" + listed;
  return make_error("unknown subcommand '" + *(name + 1) + "' of `" + where + "`", hint, ErrorKind::usage);
}

// A parsed subcommand and the handler its configure function returned.
struct Configured {
  const Command* command;
  CLI::App* app;
  CommandHandler handler;
};

// Builds what the command's table entry says it needs, once, and runs it.
Result<int> run_command(const Command& command, const CommandHandler& handler) {
  if (command.needs == Needs::nothing) return handler(Setup{});
  CUDAENV_TRY_ASSIGN(Session session, Session::from_process());
  if (command.needs == Needs::session) return handler(Setup{&session, nullptr});
  CUDAENV_TRY_ASSIGN(Selection selection, session.select());
  return handler(Setup{&session, &selection});
}

int run_parsed(CLI::App& app, std::vector<std::string> words, const std::vector<Configured>& commands) {
  std::vector<char*> argv = c_string_array(words);
  try {
    app.parse(static_cast<int>(words.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::string where = "cudaenv";
    CLI::App* deepest = &app;
    while (!deepest->get_subcommands().empty()) {
      deepest = deepest->get_subcommands().front();
      where += " " + deepest->get_name();
    }
    if (deepest != &app) {
      if (auto error = subcommand_error(*deepest, where, words)) {
        print_error(*error);
        return exit_code(error->kind);
      }
    }
    Error error = make_error(e.what(), "run `" + where + " --help` for usage", ErrorKind::usage);
    print_error(error);
    return exit_code(error.kind);
  }
  for (const Configured& configured : commands) {
    if (!configured.app->parsed()) continue;
    Result<int> status = run_command(*configured.command, configured.handler);
    if (status) return *status;
    print_error(status.error());
    return exit_code(status.error().kind);
  }
  std::fputs(app.help().c_str(), stdout);
  return 0;
}

}  // namespace

int run_cli(int argc, char** argv) {
  if (auto error = unknown_command_error(argc, argv)) {
    print_error(*error);
    return exit_code(error->kind);
  }
  // Answered here: CLI11 reports its version flag by throwing, which costs more than the rest.
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    std::puts("cudaenv " CUDAENV_VERSION_STRING);
    return 0;
  }
  CLI::App app{"cudaenv: CUDA toolkits side by side, one per project.", "cudaenv"};
  app.set_version_flag("--version", "cudaenv " CUDAENV_VERSION_STRING);
  app.require_subcommand(0, 1);
  std::vector<std::string> words(argv, argv + argc);
  // Only the invoked command declares its options; without one (`cudaenv --help`), all do.
  const Command* invoked = argc > 1 ? find_command(argv[1]) : nullptr;
  std::vector<Configured> commands;
  for (const Command& command : command_table()) {
    if (invoked && invoked != &command) continue;
    CLI::App* sub = app.add_subcommand(command.name, command.summary);
    if (command.footer) sub->footer(command.footer);
    commands.push_back({&command, sub, command.configure(*sub)});
    if (command.passes_command_line && invoked == &command) words = with_end_of_options(*sub, std::move(words));
  }
  try {
    return run_parsed(app, std::move(words), commands);
  } catch (const std::exception& e) {
    print_error(make_error(std::string("internal error: ") + e.what(), "please report this with the command you ran"));
    return 1;
  }
}

}  // namespace cudaenv
