// `rehash`: the shims again, for every toolkit program. It has no options, so no CLI11 here.
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

CommandHandler configure_rehash(CLI::App& /*command*/) {
  return [](const Setup& setup) { return run_rehash(setup.session()); };
}

}  // namespace cudaenv
