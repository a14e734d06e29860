#ifndef CUDAENV_LEAN_SELECT_H
#define CUDAENV_LEAN_SELECT_H
/* The shim's common case in C: the version CUDAENV_VERSION, the nearest cuda.toml or the
 * global file asks for, found under versions/ (an exact name opened directly, a prefix by one
 * listing), or the system toolkit where none is set; its program and environment. Whatever it
 * is not sure of (an error, an unusual path, file or PATH, the hook's state) it leaves to the
 * full resolver, core/selection.h, by answering 0:
 * the same test vectors (tests/unit/lean_select_test.cpp) hold the two to one answer. */

#include <stddef.h>

#include "lean/lean_fs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lean_block;

struct lean_plan {
  char* program; /* the file to run, and its argv[0] */
  char** envp;   /* its environment: the caller's, with the toolkit's variables set */
  struct lean_block* blocks;
};

struct lean_request {
  const struct lean_fs* fs;
  char** environ;       /* the caller's environment */
  const char* cwd;      /* the logical working directory */
  const char* self_exe; /* the shim's file, for the root of a shims folder; may be NULL */
  const char* program;  /* the name the shim was run as */
};

/* 1: `plan` holds what the full resolver gives; 0: unsure. Free the plan either way. */
int lean_plan_program(const struct lean_request* request, struct lean_plan* plan);
void lean_plan_free(struct lean_plan* plan);

#ifdef __cplusplus
}
#endif

#endif
