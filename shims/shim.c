/* cudaenv-shim: every file in shims/ is this program under another name. It resolves the
 * active toolkit (no shell, no subprocess, no network), sets that toolkit's environment and
 * execs the real program in its place. C on musl, so it starts in a few microseconds: the
 * common case is src/lean/lean_select.h; anything else (errors included) it hands, with its
 * arguments and environment untouched, to cudaenv-shim-full (shim_full.cpp), the full
 * resolver that `cudaenv exec` and the rest use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lean/lean_os.h"
#include "lean/lean_select.h"

extern char** environ;

enum { PATH_SIZE = 4096 };

/* cudaenv-shim-full as rehash links it into the shims folder, or beside this program. */
static void run_full_resolver(int argc, char** argv, const char* self) {
  static const char* const names[] = {".cudaenv-shim-full", "cudaenv-shim-full"};
  const char* slash = strrchr(self, '/');
  size_t dir = slash ? (size_t)(slash - self) + 1 : 0;
  char** args = malloc(((size_t)argc + 4) * sizeof *args);
  for (size_t i = 0; args && i < sizeof names / sizeof names[0]; ++i) {
    char full[PATH_SIZE];
    if (dir + strlen(names[i]) >= sizeof full) break;
    memcpy(full, self, dir);
    strcpy(full + dir, names[i]);
    if (access(full, X_OK) != 0 || lean_is_same_program(full, "/proc/self/exe")) continue;
    args[0] = full;
    args[1] = "--from-shim";
    args[2] = (char*)self;
    for (int j = 0; j < argc; ++j) args[3 + j] = argv[j];
    args[3 + argc] = NULL;
    execve(full, args, environ);
  }
  fprintf(stderr,
          "cudaenv: error: cudaenv-shim-full is missing beside %s\n"
          "  run `cudaenv rehash`, or reinstall cudaenv\n",
          self);
  exit(127);
}

int main(int argc, char** argv) {
  char self[PATH_SIZE];
  if (lean_self_exe(self, sizeof self) < 0) strcpy(self, "/proc/self/exe");
  const char* name = argc > 0 && argv[0] ? argv[0] : "";
  if (strrchr(name, '/')) name = strrchr(name, '/') + 1;
  char cwd[PATH_SIZE];
  if (argc > 0 && lean_logical_working_dir(getenv("PWD"), cwd, sizeof cwd) == 0) {
    struct lean_request request = {&lean_disk, environ, cwd, self, name};
    struct lean_plan plan;
    /* A toolkit program that is this shim again would start it again: the full resolver says so. */
    if (lean_plan_program(&request, &plan) && !lean_is_same_program(plan.program, "/proc/self/exe")) {
      char* given = argv[0];
      argv[0] = plan.program; /* nvcc finds nvcc.profile beside argv[0] */
      execve(plan.program, argv, plan.envp);
      argv[0] = given;
    }
  }
  run_full_resolver(argc, argv, self);
  return 127;
}
