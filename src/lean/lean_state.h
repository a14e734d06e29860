#ifndef CUDAENV_LEAN_STATE_H
#define CUDAENV_LEAN_STATE_H
/* __CUDAENV_STATE (core/hook_state.h) in C, the one copy: the lean front's hook-env writes it
 * and the C++ core reads it through these calls, so the two cannot drift; and the environment
 * as it was before the hook changed it, which both need. */

#include <stddef.h>

#include "lean/lean_text.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LEAN_STATE_VARIABLE "__CUDAENV_STATE" /* kStateVariable */
#define LEAN_STATE_LIMIT ((size_t)64 * 1024)  /* kStateLimit */

/* Where the calls below keep what they answer: `allocate` gives `size` bytes that live as long
 * as the caller needs the answer, or NULL. The lean code passes its plan (lean_plan_memory()),
 * the C++ core memory of its own, so that reading a state needs no selection code. */
struct lean_memory {
  void* (*allocate)(void* self, size_t size);
  void* self;
};

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

/* parse_state(), tolerant: a garbled state is an empty one. 0 only when out of memory. */
int lean_parse_state(const struct lean_memory* memory, const char* text, size_t size, struct lean_state* state);
/* format_state(). */
void lean_format_state(const struct lean_state* state, struct lean_text* out);

/* `environ` (each name once) without what `state` records and without the
 * state variable; the entries it leaves as they were are `environ`'s own. NULL when out of memory. */
char** lean_revert_state(const struct lean_memory* memory, char** environ, const struct lean_state* state);

/* without_hook_changes(): lean_revert_state() of the state `environ` (each name once) holds, or
 * `environ` itself where it holds none. NULL when out of memory. */
char** lean_without_hook_changes(const struct lean_memory* memory, char** environ);

#ifdef __cplusplus
}
#endif

#endif
