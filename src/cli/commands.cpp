#include "cli/commands.h"

namespace cudaenv {

const std::vector<Command>& command_table() {
  static const std::vector<Command> table = {
      {"add", "Register an existing toolkit (PATH, or --scan for /usr/local/cuda-*)", configure_add},
      {"use", "Pin this project to a CUDA version in ./cuda.toml", configure_use},
      {"global", "Show or set the default CUDA version", configure_global},
      {"current", "Show the active CUDA version and what set it", configure_current},
      {"versions", "List installed and registered toolkits", configure_versions},
      {"which", "Show the real path of a toolkit program", configure_which},
      {"prefix", "Show the root folder of a toolkit", configure_prefix},
      {"exec", "Run a command with the active toolkit's environment", configure_exec, true},
      {"env", "Print the active toolkit's environment for a shell", configure_env},
      {"rehash", "Rebuild the shims for every toolkit program", configure_rehash},
      {"install", "Install CUDA toolkits from NVIDIA's redist archives", configure_install},
      {"uninstall", "Remove an installed toolkit (a registered one is only unregistered)", configure_uninstall},
      {"lock", "Write cuda.lock: the exact archives cuda.toml resolves to (--check, --hash for CI)", configure_lock},
      {"list-remote", "List the CUDA versions that can be installed", configure_list_remote},
      {"update", "Read the list of CUDA releases again (it is cached a day)", configure_update},
      {"init", "Print the shell integration (PATH, cd hook, completions) for bash, zsh or fish", configure_init},
      {"hook-env", "Print the environment update the prompt hook evaluates", configure_hook_env},
      {"shell", "Set the CUDA version for this shell only (needs the shell integration)", configure_shell},
      {"trust", "Allow a cuda.toml's [env] to be applied", configure_trust},
      {"untrust", "Revoke a cuda.toml's [env]", configure_untrust},
      {"mirror", "Sync releases into an offline mirror folder (sync), or re-check one (verify)", configure_mirror},
      {"module", "Write Lmod or Tcl modulefiles for installed toolkits", configure_module},
      {"torch", "Print the matching PyTorch wheel index and install command", configure_torch},
      {"torch-index-refresh", "", configure_torch_index_refresh},  // hidden: run by `cudaenv torch`
      {"doctor", "Find every CUDA mismatch (driver, toolkit, nvcc, torch, gcc) and its fix", configure_doctor},
  };
  return table;
}

}  // namespace cudaenv
