// cudaenv-hook: `cudaenv hook-env --shell SHELL`, the command the prompt hook runs, as one
// static program: no dynamic loader, no CLI11, only the hook's code. The lean front
// (front.c) runs it for exactly that command line; cudaenv-full runs the same function.
#include <cstdio>
#include <cstring>

#include "cli/commands.h"

int main(int argc, char** argv) {
  bool hook_env = argc == 4 && std::strcmp(argv[1], "hook-env") == 0 && std::strcmp(argv[2], "--shell") == 0;
  if (hook_env) {
    for (const char* shell : {"bash", "zsh", "fish"}) {
      if (std::strcmp(argv[3], shell) == 0) return cudaenv::run_hook_env(shell);
    }
  }
  std::fputs(
      "cudaenv: error: cudaenv-hook runs as `cudaenv-hook hook-env --shell bash|zsh|fish`\n"
      "  run `cudaenv hook-env --shell SHELL` instead\n",
      stderr);
  return 2;
}
