#ifndef CUDAENV_LEAN_TOOLKITS_H
#define CUDAENV_LEAN_TOOLKITS_H
/* list_toolkits() (core/toolkits.h) in C, for the lean `cudaenv versions`: every root's
 * versions/ listed once, the user's names hiding the shared root's, sorted oldest first
 * (names that are not versions last, by name). Unsure (a relative link) answers 0; the
 * test vectors in tests/unit/lean_select_test.cpp hold it to list_toolkits()'s answer. */

#include <stddef.h>

#include "lean/lean_select.h"

#ifdef __cplusplus
extern "C" {
#endif

struct lean_toolkit {
  const char* name;
  size_t root;      /* 0: the user's versions/, 1: the shared root's */
  const char* home; /* the entry, or the absolute target of a registered one's link */
  int registered;   /* the entry is a symlink (`cudaenv add`) */
  int present;      /* home/bin is a folder */
  long parts[4];
  int part_count; /* 0: the name is not a version */
};

struct lean_toolkits {
  struct lean_toolkit* items;
  size_t count;
};

/* 1: `out` lists what list_toolkits() lists, kept in `memory`; 0: unsure. */
int lean_list_toolkits(const struct lean_fs* fs, const struct lean_roots* roots, struct lean_plan* memory,
                       struct lean_toolkits* out);

#ifdef __cplusplus
}
#endif

#endif
