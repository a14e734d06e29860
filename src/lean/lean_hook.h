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
#include "lean/lean_text.h"

#ifdef __cplusplus
extern "C" {
#endif

enum lean_dialect { LEAN_POSIX, LEAN_FISH };

/* 1: `code` holds what run_hook prints on stdout, `messages` what it prints on stderr, and the
 * stamp files are made; 0: unsure. `environ` is the shell's, `cwd` its logical working folder. */
int lean_hook_env(char** environ, const char* cwd, enum lean_dialect dialect, struct lean_plan* memory, struct lean_text* code,
                  struct lean_text* messages);

/* without_hook_changes() (core/hook_state.h): `environ` as it was before the hook changed it,
 * its state variable gone (`environ` itself where it has none); NULL where there is a state and
 * not every entry is NAME=value, each name once. */
char** lean_without_hook_changes(struct lean_plan* memory, char** environ);

/* __CUDAENV_STATE (core/hook_state.h) as parse_state() reads and format_state() writes it. */
struct lean_owned {
  const char* variable;
  const char* value;    /* the list entry (P) or the value set (S, U) */
  const char* previous; /* S: the value before; NULL: it was unset (U), or a list entry */
};
struct lean_state {
  const char* announced;  /* "" when none */
  const char* notice_key; /* "" when none */
  struct lean_owned* entries;
  size_t entry_count;
  struct lean_owned* values;
  size_t value_count;
};
/* Tolerant like parse_state(): a garbled state is an empty one. 0 only when out of memory. */
int lean_parse_state(struct lean_plan* memory, const char* text, size_t size, struct lean_state* state);
void lean_format_state(const struct lean_state* state, struct lean_text* out);

#ifdef __cplusplus
}
#endif

#endif
