#include "cli/commands.h"

namespace cudaenv {

const std::vector<Command>& command_table() {
  static const std::vector<Command> table = {
      {"add", "Register an existing toolkit (PATH, or --scan for /usr/local/cuda-*)", Needs::session, configure_add},
      {"use", "Pin this project to a CUDA version in ./cuda.toml", Needs::session, configure_use},
      {"global", "Show or set the default CUDA version", Needs::session, configure_global},
      {"current", "Show the active CUDA version and what set it", Needs::selection, configure_current},
      {"versions", "List installed and registered toolkits", Needs::session, configure_versions},
      {"which", "Show the real path of a toolkit program", Needs::selection, configure_which},
      {"prefix", "Show the root folder of a toolkit", Needs::session, configure_prefix},
      {"exec", "Run a command with the active toolkit's environment", Needs::session, configure_exec, true},
      {"env", "Print the active toolkit's environment for a shell", Needs::selection, configure_env},
      {"rehash", "Rebuild the shims for every toolkit program", Needs::session, configure_rehash, false,
       "Runs by itself after add, install and uninstall."},
      {"install", "Install CUDA toolkits from NVIDIA's redist archives", Needs::session, configure_install},
      {"uninstall", "Remove an installed toolkit (a registered one is only unregistered)", Needs::session, configure_uninstall},
      {"lock", "Write cuda.lock: the exact archives cuda.toml resolves to (--check, --hash for CI)", Needs::session,
       configure_lock},
      {"list-remote", "List the CUDA versions that can be installed", Needs::session, configure_list_remote},
      {"update", "Read the list of CUDA releases again (it is cached a day)", Needs::session, configure_update},
      {"config", "List every setting, its value and where it came from", Needs::session, configure_config},
      {"init", "Print the shell integration (PATH, cd hook, completions) for bash, zsh or fish", Needs::session, configure_init},
      {"hook-env", "Print the environment update the prompt hook evaluates", Needs::nothing, configure_hook_env},
      {"shell", "Set the CUDA version for this shell only (needs the shell integration)", Needs::session, configure_shell},
      {"trust", "Allow a cuda.toml's [env], and the servers its cuda.lock names", Needs::session, configure_trust},
      {"untrust", "Revoke what trust allowed", Needs::session, configure_untrust},
      {"mirror", "Sync releases into an offline mirror folder (sync), or re-check one (verify)", Needs::session,
       configure_mirror},
      {"module", "Write Lmod or Tcl modulefiles for installed toolkits", Needs::session, configure_module},
      {"torch", "Print the matching PyTorch wheel index and install command", Needs::session, configure_torch},
      {"torch-index-refresh", "", Needs::session, configure_torch_index_refresh},  // hidden: run by `cudaenv torch`
      {"extension-wheels", "", Needs::session, configure_extension_wheels},        // hidden: run by `torch --with`, doctor
      {"target", "Save a GPU machine (driver, GPUs) to resolve for where it is not: save, list, show, remove", Needs::session,
       configure_target},
      {"doctor", "Find every CUDA mismatch (driver, toolkit, nvcc, torch, gcc) and its fix", Needs::session, configure_doctor},
      {"shim", "", Needs::nothing, configure_shim, true},  // hidden: what a shim runs when it has no record
  };
  return table;
}

}  // namespace cudaenv
