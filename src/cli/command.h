#pragma once
// The table of subcommands (ninja's tool table): each entry declares its options on a
// CLI11 subcommand and returns the handler that runs once parsing succeeded.

#include <CLI/CLI.hpp>
#include <functional>
#include <vector>

#include "util/result.h"

namespace cudaenv {

// Returns the process exit status, or an error for the top to print.
using CommandHandler = std::function<Result<int>()>;

struct Command {
  const char* name;
  const char* summary;
  CommandHandler (*configure)(CLI::App& command);
  // Runs another program: what follows its own options is that program's argv, kept as written.
  bool passes_command_line = false;
};

const std::vector<Command>& command_table();

// Entry point behind main(): parses argv, runs one command, prints its error.
int run_cli(int argc, char** argv);

}  // namespace cudaenv
