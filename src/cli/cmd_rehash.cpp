#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "store/rehash.h"
#include "util/output.h"
#include "util/strings.h"

namespace cudaenv {

static Result<int> run_rehash(const Session& session) {
  CUDAENV_TRY_ASSIGN(auto report, rehash_after_change(session.fs, session.layout));
  if (!report.added.empty()) print_note("new shims: " + join(report.added, " "));
  if (!report.removed.empty()) print_note("removed shims: " + join(report.removed, " "));
  return 0;
}

CommandHandler configure_rehash(CLI::App& command) {
  command.footer("Runs by itself after add, install and uninstall.");
  return [](const Setup& setup) { return run_rehash(setup.session()); };
}

}  // namespace cudaenv
