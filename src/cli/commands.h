#pragma once
// The configure functions the command table points at, one per subcommand.

#include <string>

#include "cli/command.h"
#include "install/fetch_settings.h"

namespace cudaenv {

struct LockSources;

CommandHandler configure_add(CLI::App& command);
CommandHandler configure_use(CLI::App& command);
CommandHandler configure_global(CLI::App& command);
CommandHandler configure_current(CLI::App& command);
CommandHandler configure_versions(CLI::App& command);
CommandHandler configure_which(CLI::App& command);
CommandHandler configure_prefix(CLI::App& command);
CommandHandler configure_exec(CLI::App& command);
CommandHandler configure_env(CLI::App& command);
CommandHandler configure_rehash(CLI::App& command);
// These are defined twice: for real in cmd_install.cpp / cmd_mirror.cpp (linked into
// cudaenv-fetch), and as hand-offs to cudaenv-fetch in fetch_delegate.cpp (linked into cudaenv).
CommandHandler configure_install(CLI::App& command);
CommandHandler configure_uninstall(CLI::App& command);
CommandHandler configure_list_remote(CLI::App& command);
CommandHandler configure_update(CLI::App& command);
CommandHandler configure_config(CLI::App& command);  // cmd_config.cpp / fetch_delegate.cpp
CommandHandler configure_lock(CLI::App& command);    // cmd_lock.cpp / fetch_delegate.cpp
CommandHandler configure_init(CLI::App& command);
CommandHandler configure_hook_env(CLI::App& command);
CommandHandler configure_shell(CLI::App& command);
CommandHandler configure_trust(CLI::App& command);
CommandHandler configure_untrust(CLI::App& command);
CommandHandler configure_mirror(CLI::App& command);
CommandHandler configure_torch_index_refresh(CLI::App& command);  // cmd_torch_index.cpp / fetch_delegate.cpp
CommandHandler configure_extension_wheels(CLI::App& command);     // cmd_extension_wheels.cpp / fetch_delegate.cpp
CommandHandler configure_module(CLI::App& command);
CommandHandler configure_torch(CLI::App& command);
CommandHandler configure_doctor(CLI::App& command);
CommandHandler configure_target(CLI::App& command);
CommandHandler configure_shim(CLI::App& command);  // hidden: run by the shims

// Shared by the commands that fetch, defined in cmd_install.cpp. --mirror, --source, --index-url
// and --skip-manifest-pin (install, lock) and --no-progress (install, mirror sync), declared once
// so their help cannot drift apart; and the sources a lock is resolved and installed from
// (lock/project_lock.h), from the options and the session's settings.
void add_fetch_options(CLI::App& command, std::string& mirror, std::string& source, std::string& index_url,
                       bool& skip_manifest_pin);
void add_progress_option(CLI::App& command, bool& no_progress);
LockSources lock_sources(const Session& session, std::string base_url, const std::string& index_url_option,
                         bool skip_manifest_pin_option, FetchSettings fetch);

}  // namespace cudaenv
