// In `cudaenv`, the commands that download or unpack archives (install, uninstall,
// list-remote, update, mirror) or read their catalogs (config) are handed to cudaenv-fetch,
// the same CLI linked with libcurl and libarchive. Loading those libraries and their
// dependencies costs about 5 ms at every start, which every other command, and the shell
// hook, would otherwise pay.
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "core/data_dir.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

Result<int> run_in_fetch_helper(const std::string& name, const std::vector<std::string>& arguments) {
  CUDAENV_TRY_ASSIGN(auto helper, locate_program("cudaenv-fetch"));
  std::vector<std::string> args{helper.string(), name};
  args.insert(args.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv = c_string_array(args);
  ::execv(helper.c_str(), argv.data());
  return make_error("cannot run " + helper.string() + ": " + std::strerror(errno),
                    "reinstall cudaenv (./install.sh) so its programs are installed together");
}

// Everything after the command name, --help included, goes to the helper untouched.
CommandHandler delegate(CLI::App& command) {
  command.set_help_flag();
  command.allow_extras();
  command.prefix_command();
  return [&command](const Setup&) { return run_in_fetch_helper(command.get_name(), command.remaining()); };
}

}  // namespace

CommandHandler configure_install(CLI::App& command) { return delegate(command); }
CommandHandler configure_uninstall(CLI::App& command) { return delegate(command); }
CommandHandler configure_list_remote(CLI::App& command) { return delegate(command); }
CommandHandler configure_mirror(CLI::App& command) { return delegate(command); }
CommandHandler configure_update(CLI::App& command) { return delegate(command); }
CommandHandler configure_config(CLI::App& command) { return delegate(command); }
CommandHandler configure_lock(CLI::App& command) { return delegate(command); }
CommandHandler configure_torch_index_refresh(CLI::App& command) {
  command.group("");
  return delegate(command);
}
CommandHandler configure_extension_wheels(CLI::App& command) {
  command.group("");
  return delegate(command);
}

}  // namespace cudaenv
