#pragma once
// The table of subcommands (ninja's tool table): each entry says what the command needs
// built before it runs, declares its options on a CLI11 subcommand and returns the handler
// that runs once parsing succeeded. CLI11 is only declared here: the files that configure
// options include it themselves, so main.cpp and the table compile without it.

#include <functional>
#include <vector>

#include "util/result.h"

namespace CLI {
class App;
}

namespace cudaenv {

struct Session;
struct Selection;

// What the dispatcher builds, once, before a command's handler runs (ninja's Tool::when).
enum class Needs {
  nothing,    // runs on its options alone
  session,    // the process's environment, working folder and layout
  selection,  // the session and the active toolkit; a failed selection is the command's error
};

// What the dispatcher built for the command, as its table entry asked.
class Setup {
 public:
  Setup() = default;
  Setup(const Session* session, const Selection* selection) : session_(session), selection_(selection) {}
  const Session& session() const {
    if (!session_) result_misused("a command that needs no session asked for it");
    return *session_;
  }
  const Selection& selection() const {
    if (!selection_) result_misused("a command that needs no selection asked for it");
    return *selection_;
  }

 private:
  const Session* session_ = nullptr;
  const Selection* selection_ = nullptr;
};

// Returns the process exit status, or an error for the top to print.
using CommandHandler = std::function<Result<int>(const Setup&)>;

struct Command {
  const char* name;
  const char* summary;
  Needs needs;
  CommandHandler (*configure)(CLI::App& command);
  // Runs another program: what follows its own options is that program's argv, kept as written.
  bool passes_command_line = false;
  // Text after the options in --help; here so a command with no options needs no CLI11.
  const char* footer = nullptr;
};

const std::vector<Command>& command_table();

// Entry point behind main(): parses argv, runs one command, prints its error.
int run_cli(int argc, char** argv);

}  // namespace cudaenv
