#ifndef CUDAENV_LEAN_SELECT_H
#define CUDAENV_LEAN_SELECT_H
/* The shim's common case in C (and the selection the lean `cudaenv` front and its hook-env
 * answer with): the version CUDAENV_VERSION, the nearest cuda.toml or the global file asks for,
 * found under versions/ (an exact name opened directly, a prefix by one listing, which the disk
 * answers from its index where fresh: lean_cache.h), or, for the shim, the system toolkit where
 * none is set; its program and environment. Whatever it is not sure of
 * (an error, an unusual path, file or PATH, the hook's state) it leaves to the full resolver,
 * core/selection.h, by answering 0: the same test vectors (tests/unit/lean_select_test.cpp)
 * hold the two to one answer. */

#include <stddef.h>

#include "lean/lean_fs.h"
#include "lean/lean_state.h"

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

/* `size` bytes that live until lean_plan_free(plan); NULL when out of memory. The functions
 * below keep what they answer in a plan used as memory (zero-initialised before its first use). */
void* lean_allocate(struct lean_plan* plan, size_t size);
/* The plan as the memory lean_state.h's calls keep their answers in. */
struct lean_memory lean_plan_memory(struct lean_plan* plan);

/* An absolute path that lexically_normal() leaves as it is: no empty, "." or ".." segment and
 * no trailing slash. */
int lean_is_plain_absolute(const char* path);

/* Every entry NAME=value, each name once: the full resolver's map would drop the others. */
int lean_environment_is_plain(char** environ);

/* The value of a variable set and not empty (env_get), or NULL. */
const char* lean_env_value(char** environ, const char* name);

/* A copy of `text` in `memory`. */
char* lean_copy(struct lean_plan* memory, const char* text);

/* The strings given, up to a (char*)NULL, one after the other, in `memory`; NULL when out of memory. */
char* lean_concat(struct lean_plan* memory, ...);

/* `dir` / `name` as std::filesystem joins them (no second slash after a trailing one). */
char* lean_join(struct lean_plan* memory, const char* dir, const char* name);

/* parse_version() (core/version.h): 1 to 4 dot-separated numbers of at most 9 digits, their
 * count (0: not a version); and Version's order, shorter first where one is a prefix. */
int lean_parse_version(const char* text, long parts[4]);
int lean_compare_versions(const long* a, int a_count, const long* b, int b_count);

/* The roots as layout_from_env() (layout_for_shim() given `self_exe`) makes them, in an
 * environment the full resolver's map holds unchanged (each name once): 1, or 0 unsure. */
struct lean_roots {
  const char* user_root;   /* CUDAENV_ROOT, or ~/.cudaenv */
  const char* versions[2]; /* its versions/, then the shared root's when that is another */
  size_t count;
  const char* shims; /* the user root's shims/ */
};
int lean_find_roots(const struct lean_request* request, struct lean_plan* memory, struct lean_roots* roots);

/* list_dir of a root's versions/, through the file system's index of it where it keeps one. */
int lean_list_versions(const struct lean_fs* fs, const char* dir, void (*each)(void* context, const char* name, int not_a_link),
                       void* context);

/* find_on_path(): the first executable `program` in a PATH folder other than `skip`; `found`
 * NULL when there is none. 0 (unsure) at a folder lexically_normal() would spell otherwise. */
int lean_find_on_path(struct lean_plan* memory, const struct lean_fs* fs, const char* path, const char* program, const char* skip,
                      char** found);

/* find_system_toolkit() finds one: an nvcc in a `path` folder other than `shims`, or
 * /usr/local/cuda's. `path` as without_hook_changes() leaves PATH. 1 with `exists` set, 0 unsure. */
int lean_system_toolkit_exists(struct lean_plan* memory, const struct lean_fs* fs, const char* path, const char* shims,
                               int* exists);

/* find_project_file(): the nearest cuda.toml at or above the plain absolute `cwd` (`path` NULL:
 * none), 1; 0 unsure. */
int lean_find_project(struct lean_plan* memory, const struct lean_fs* fs, const char* cwd, const char** path);

/* toolkit_env_change(): the entries put in front of list variables, then the variables set. */
struct lean_variable {
  const char* name;
  const char* value;
};
struct lean_change {
  struct lean_variable prepend[2];
  size_t prepend_count;
  struct lean_variable set[6];
  size_t set_count;
};

enum lean_origin { LEAN_ORIGIN_ENVIRONMENT, LEAN_ORIGIN_PROJECT, LEAN_ORIGIN_GLOBAL };

/* What select_toolkit() gives where it selects a toolkit under versions/ (never "system"). */
struct lean_selection {
  struct lean_roots roots;
  const char* request;       /* the version asked for */
  const char* name;          /* the versions/ entry it resolved to */
  size_t root;               /* 0: the user's versions/, 1: the shared one */
  const char* home;          /* CUDA_HOME, the link's target for a registered toolkit */
  enum lean_origin origin;   /* what asked */
  const char* origin_file;   /* the cuda.toml or global file that asked; NULL for CUDAENV_VERSION */
  int has_project;           /* a cuda.toml governs the folder */
  int project_warns;         /* its unknown keys: the full resolver warns of them */
  size_t project_env;        /* the entries of its [env] */
  struct lean_change change; /* what the toolkit sets (selection_env_change()) */
  int fallback;              /* unsure because nothing asks for a version: the full resolver falls back to "system" */
};
/* 1: `selection` holds what the full resolver selects, with no warning; 0: unsure (see `fallback`). */
int lean_select_toolkit(const struct lean_request* request, struct lean_plan* memory, struct lean_selection* selection);

#ifdef __cplusplus
}
#endif

#endif
