#ifndef CUDAENV_LEAN_HOOK_H
#define CUDAENV_LEAN_HOOK_H
/* `cudaenv hook-env --shell SHELL` (shell/hook.cpp run_hook) in its common case, in C so that
 * the lean front answers the prompt without starting a glibc program: a toolkit under
 * versions/ that lean_select_toolkit() is sure of, or nothing asked for at all. What else
 * run_hook does (its notices and warnings, a project's [env] and its trust, "system", a state
 * too large) it leaves to cudaenv-hook by answering 0 with nothing printed; the integration
 * test front_vs_full.sh holds the two to the same bytes and the same stamp files. */

#include <stddef.h>

#include "lean/lean_select.h"
#include "lean/lean_state.h"
#include "lean/lean_text.h"

#ifdef __cplusplus
extern "C" {
#endif

enum lean_dialect { LEAN_POSIX, LEAN_FISH };

/* 1: `code` holds what run_hook prints on stdout, `messages` what it prints on stderr, and the
 * stamp files are made; 0: unsure. `environ` is the shell's, `cwd` its logical working folder. */
int lean_hook_env(char** environ, const char* cwd, enum lean_dialect dialect, struct lean_plan* memory, struct lean_text* code,
                  struct lean_text* messages);

#ifdef __cplusplus
}
#endif

#endif
