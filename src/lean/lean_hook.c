#define _POSIX_C_SOURCE 200809L
#include "lean/lean_hook.h"

#include <stdlib.h>
#include <string.h>

#include "lean/lean_os.h"

#define NOTICE_LINE_SIZE (2 + 64 + 1) /* "N\t<sha256 hex>\n", which bounded() counts in */

/* ---- The environment as a map (EnvMap): each name once, a value or unset ---- */

struct variable {
  const char* name;
  size_t name_size;
  const char* value; /* NULL: unset */
};

struct environment {
  struct variable* items;
  size_t count, capacity;
};

enum { ADDED_MOST = 16 }; /* the toolkit's variables and the state */

static int read_environment(struct lean_plan* memory, char** environ, struct environment* env) {
  size_t count = 0;
  while (environ[count]) ++count;
  env->capacity = count + ADDED_MOST;
  env->items = lean_allocate(memory, env->capacity * sizeof *env->items);
  if (!env->items) return 0;
  for (env->count = 0; env->count < count; ++env->count) {
    const char* entry = environ[env->count];
    const char* eq = strchr(entry, '=');
    struct variable variable = {entry, (size_t)(eq - entry), eq + 1};
    env->items[env->count] = variable;
  }
  return 1;
}

static int copy_environment(struct lean_plan* memory, const struct environment* from, struct environment* to) {
  *to = *from;
  to->items = lean_allocate(memory, from->capacity * sizeof *to->items);
  if (!to->items) return 0;
  memcpy(to->items, from->items, from->count * sizeof *to->items);
  return 1;
}

static struct variable* find(const struct environment* env, const char* name) {
  size_t n = strlen(name);
  for (size_t i = 0; i < env->count; ++i) {
    struct variable* variable = &env->items[i];
    if (variable->name_size == n && !memcmp(variable->name, name, n)) return variable;
  }
  return NULL;
}

/* The value of `name`, NULL when unset. */
static const char* value_of(const struct environment* env, const char* name) {
  const struct variable* variable = find(env, name);
  return variable ? variable->value : NULL;
}

/* Sets `name` (NULL `value`: unsets it); 0 when out of room. */
static int set_value(struct environment* env, const char* name, const char* value) {
  struct variable* variable = find(env, name);
  if (!variable) {
    if (!value) return 1;
    if (env->count == env->capacity) return 0;
    variable = &env->items[env->count++];
    variable->name = name;
    variable->name_size = strlen(name);
  }
  variable->value = value;
  return 1;
}

/* apply_owned(): the variables set, then the list entries put in front, each recorded. */
static int apply(struct lean_plan* memory, struct environment* env, const struct lean_change* change, struct lean_state* next) {
  next->values = lean_allocate(memory, (change->set_count + 1) * sizeof *next->values);
  next->entries = lean_allocate(memory, (change->prepend_count + 1) * sizeof *next->entries);
  if (!next->values || !next->entries) return 0;
  for (size_t i = 0; i < change->set_count; ++i) {
    const struct lean_variable* set = &change->set[i];
    struct lean_owned owned = {set->name, set->value, value_of(env, set->name)};
    next->values[next->value_count++] = owned;
    if (!set_value(env, set->name, set->value)) return 0;
  }
  for (size_t i = 0; i < change->prepend_count; ++i) {
    const struct lean_variable* prepend = &change->prepend[i];
    const char* list = value_of(env, prepend->name);
    const char* value = prepend->value;
    if (list && *list && !(value = lean_concat(memory, prepend->value, ":", list, (char*)NULL))) return 0;
    struct lean_owned owned = {prepend->name, prepend->value, NULL};
    next->entries[next->entry_count++] = owned;
    if (!set_value(env, prepend->name, value)) return 0;
  }
  return 1;
}

/* ---- Shell code ---- */

static void quote(struct lean_text* out, const char* text, enum lean_dialect dialect) {
  if (dialect == LEAN_FISH) lean_fish_quote(out, text, strlen(text));
  else lean_posix_quote(out, text, strlen(text));
}

/* fish keeps *PATH variables as lists (render_exports()). */
static int is_path_list(const char* name) {
  size_t n = strlen(name);
  return n >= 4 && !strcmp(name + n - 4, "PATH") && strcmp(name, "CUDA_PATH") != 0;
}

static void append_export(struct lean_text* out, const char* name, const char* value, enum lean_dialect dialect) {
  if (dialect == LEAN_POSIX) {
    lean_append_all(out, "export ", name, "=", (char*)NULL);
    quote(out, value, dialect);
    lean_append(out, ";\n", 2);
    return;
  }
  lean_append_all(out, "set -gx ", name, (char*)NULL);
  if (!is_path_list(name)) {
    lean_append(out, " ", 1);
    quote(out, value, dialect);
  }
  for (const char* part = value; is_path_list(name);) {
    const char* colon = strchr(part, ':');
    size_t n = colon ? (size_t)(colon - part) : strlen(part);
    lean_append(out, " ", 1);
    lean_fish_quote(out, part, n);
    if (!colon) break;
    part = colon + 1;
  }
  lean_append(out, ";\n", 2);
}

/* render_env_update(): the variables of `names` (the first of each) that differ, unsets first. */
static int append_update(const struct environment* before, const struct environment* after, const char** names, size_t count,
                         enum lean_dialect dialect, struct lean_text* out) {
  struct lean_text exports = {NULL, 0, 0, 0};
  for (size_t i = 0; i < count; ++i) {
    int seen = 0;
    for (size_t j = 0; j < i && !seen; ++j) seen = !strcmp(names[i], names[j]);
    if (seen) continue;
    const char* old_value = value_of(before, names[i]);
    const char* new_value = value_of(after, names[i]);
    if (new_value && (!old_value || strcmp(old_value, new_value))) append_export(&exports, names[i], new_value, dialect);
    else if (!new_value && old_value)
      lean_append_all(out, dialect == LEAN_FISH ? "set -e -g " : "unset ", names[i], ";\n", (char*)NULL);
  }
  lean_append(out, exports.data, exports.size);
  int ok = !exports.failed;
  free(exports.data);
  return ok;
}

/* ---- The fast path (shell/fast_path.h): the watches, then render_fast_path() ---- */

struct watch {
  const char* path;
  const char* stamp; /* NULL: must not exist */
  int always_stale;
};

enum { FIXED_MOST = 4 };

struct fast_path {
  const char* dir;
  const char* version_override;
  const char* scope;
  struct watch fixed[FIXED_MOST];
  size_t fixed_count;
  struct watch* folders;
  size_t folder_count;
};

static int watch_mtime(struct lean_plan* memory, const char* stamps_dir, const char* path, struct watch* watch) {
  char stamp[4096];
  watch->path = path;
  watch->stamp = NULL;
  watch->always_stale = 0;
  switch (lean_watch_mtime(stamps_dir, path, stamp, sizeof stamp)) {
    case LEAN_WATCH_STAMPED: return (watch->stamp = lean_copy(memory, stamp)) != NULL;
    case LEAN_WATCH_MISSING: return 1;
    case LEAN_WATCH_STALE: break;
  }
  watch->always_stale = 1;
  return 1;
}

/* fast_path_for(): the folders between `cwd` and the project's, whose new cuda.toml would take
 * over, then the project file (/cuda.toml where none), the global file, the versions folders. */
static int fast_path_for(struct lean_plan* memory, const char* cwd, const char* project, const char* version_override,
                         const struct lean_roots* roots, struct fast_path* fast) {
  memset(fast, 0, sizeof *fast);
  fast->dir = cwd;
  fast->version_override = version_override;
  char* scope = project ? lean_copy(memory, project) : lean_copy(memory, "/");
  if (!scope) return 0;
  if (project) {
    char* slash = strrchr(scope, '/');
    slash[slash == scope ? 1 : 0] = '\0';
  }
  fast->scope = scope;
  size_t depth = 0;
  for (const char* p = cwd; *p; ++p) depth += *p == '/';
  fast->folders = lean_allocate(memory, (depth + 1) * sizeof *fast->folders);
  char* dir = lean_copy(memory, cwd);
  if (!fast->folders || !dir) return 0;
  while (strcmp(dir, scope) != 0 && strcmp(dir, "/") != 0) {
    struct watch must_not_exist = {lean_join(memory, dir, "cuda.toml"), NULL, 0};
    if (!must_not_exist.path) return 0;
    fast->folders[fast->folder_count++] = must_not_exist;
    char* slash = strrchr(dir, '/');
    slash[slash == dir ? 1 : 0] = '\0';
  }
  const char* stamps_dir = lean_join(memory, roots->user_root, "cache/stamps");
  const char* global = lean_join(memory, roots->user_root, "version");
  if (!stamps_dir || !global) return 0;
  if (project) {
    if (!watch_mtime(memory, stamps_dir, project, &fast->fixed[fast->fixed_count++])) return 0;
  } else {
    fast->fixed[fast->fixed_count++].path = "/cuda.toml";
  }
  if (!*version_override && !watch_mtime(memory, stamps_dir, global, &fast->fixed[fast->fixed_count++])) return 0;
  for (size_t i = 0; i < roots->count; ++i) {
    if (!watch_mtime(memory, stamps_dir, roots->versions[i], &fast->fixed[fast->fixed_count++])) return 0;
  }
  return 1;
}

static void append_word(struct lean_text* out, const char* word, enum lean_dialect dialect) {
  lean_append(out, " ", 1);
  quote(out, word, dialect);
}

/* add_test(): the `test` words true once `watch` no longer holds; 0 when it cannot be compared. */
static int append_test(struct lean_text* out, const struct watch* watch, int first, enum lean_dialect dialect) {
  if (watch->always_stale || watch->path[0] != '/' || (watch->stamp && watch->stamp[0] != '/')) return 0;
  if (!first) append_word(out, "-o", dialect);
  if (!watch->stamp) {
    append_word(out, "-e", dialect);
    append_word(out, watch->path, dialect);
    return 1;
  }
  const char* words[] = {"!", "-e", watch->path, "-o", watch->path, "-nt", watch->stamp, "-o", watch->path, "-ot", watch->stamp};
  for (size_t i = 0; i < sizeof words / sizeof *words; ++i) append_word(out, words[i], dialect);
  return 1;
}

static int append_fast_path(const struct fast_path* fast, enum lean_dialect dialect, struct lean_text* out) {
  int fish = dialect == LEAN_FISH;
  struct lean_text fixed = {NULL, 0, 0, 0}, folders = {NULL, 0, 0, 0};
  int usable = 1;
  for (size_t i = 0; i < fast->fixed_count && usable; ++i) usable = append_test(&fixed, &fast->fixed[i], i == 0, dialect);
  for (size_t i = 0; i < fast->folder_count && usable; ++i) usable = append_test(&folders, &fast->folders[i], i == 0, dialect);
  if (usable && fast->folder_count) append_word(&folders, "-o", dialect);
  if (!usable) {
    lean_append_all(out, fish ? "set -e -g __cudaenv_ready;\n" : "unset _cudaenv_ready;\n", (char*)NULL);
  } else {
    size_t scope_size = strlen(fast->scope);
    while (scope_size && fast->scope[scope_size - 1] == '/') --scope_size;
    lean_append_all(out, fish ? "set -g __cudaenv_dir " : "_cudaenv_dir=", (char*)NULL);
    quote(out, fast->dir, dialect);
    lean_append_all(out, fish ? "; set -g __cudaenv_version " : "; _cudaenv_version=", (char*)NULL);
    quote(out, fast->version_override, dialect);
    lean_append_all(out, fish ? "; set -g __cudaenv_scope " : "; _cudaenv_scope=", (char*)NULL);
    if (fish) lean_fish_quote(out, fast->scope, scope_size);
    else lean_posix_quote(out, fast->scope, scope_size);
    lean_append_all(out, ";\n", fish ? "set -g __cudaenv_fixed" : "_cudaenv_fixed=(", (char*)NULL);
    lean_append(out, fixed.data, fixed.size);
    lean_append_all(out, fish ? ";\nset -g __cudaenv_changed" : " );\n_cudaenv_changed=(", (char*)NULL);
    lean_append(out, folders.data, folders.size);
    lean_append_all(
        out, fish ? " $__cudaenv_fixed;\nset -g __cudaenv_ready 1;\n" : " \"${_cudaenv_fixed[@]}\" );\n_cudaenv_ready=1;\n",
        (char*)NULL);
  }
  int ok = !fixed.failed && !folders.failed;
  free(fixed.data);
  free(folders.data);
  return ok;
}

/* ---- What run_hook decides ---- */

struct outcome {
  struct lean_change change;
  const char* announced; /* toolkit and origin; "" when none is selected */
  const char* line;      /* "CUDA 12.1.1 (../cuda.toml)" */
  int quiet_start;       /* a global or fallback choice needs no line at shell start */
};

/* `file` relative to `dir` (lexically_relative()), both plain absolute paths; NULL where it
 * would end in a folder of `dir` (never for a cuda.toml found above it). */
static char* relative_to(struct lean_plan* memory, const char* file, const char* dir) {
  const char* f = file + 1;
  const char* d = dir + 1;
  while (*d) {
    size_t n = strcspn(d, "/");
    if (strncmp(f, d, n) != 0 || (f[n] != '/' && f[n] != '\0')) break;
    f += n + (f[n] == '/');
    d += n + (d[n] == '/');
  }
  if (!*f) return NULL;
  size_t ups = 0;
  if (*d) {
    ups = 1;
    for (const char* p = d; *p; ++p) ups += *p == '/';
  }
  char* out = lean_allocate(memory, 3 * ups + strlen(f) + 1);
  if (!out) return NULL;
  char* end = out;
  for (size_t i = 0; i < ups; ++i) end = stpcpy(end, "../");
  strcpy(end, f);
  return out;
}

static int decide(struct lean_plan* memory, const struct lean_request* request, const struct lean_roots* roots,
                  const char* global, struct outcome* outcome) {
  memset(outcome, 0, sizeof *outcome);
  outcome->announced = "";
  struct lean_selection selection;
  if (lean_select_toolkit(request, memory, &selection)) {
    if (selection.project_env) return 0; /* whether it is trusted, cudaenv-hook asks */
    outcome->change = selection.change;
    const char* label = selection.origin == LEAN_ORIGIN_ENVIRONMENT ? "CUDAENV_VERSION"
                        : selection.origin == LEAN_ORIGIN_GLOBAL    ? "global default"
                                                                    : relative_to(memory, selection.origin_file, request->cwd);
    const char* file = selection.origin_file ? selection.origin_file : "CUDAENV_VERSION";
    outcome->announced = lean_concat(memory, selection.name, "\tset by ", file, (char*)NULL);
    outcome->line = label ? lean_concat(memory, "CUDA ", selection.name, " (", label, ")", (char*)NULL) : NULL;
    outcome->quiet_start = selection.origin == LEAN_ORIGIN_GLOBAL;
    return outcome->announced && outcome->line;
  }
  /* Nothing asks for a version: the system toolkit where there is one, else none (run_hook
   * says nothing when nothing at all was asked for). */
  if (!selection.fallback || selection.has_project) return 0;
  int exists = 0;
  if (!lean_system_toolkit_exists(memory, request->fs, lean_env_value(request->environ, "PATH"), roots->shims, &exists)) return 0;
  if (exists) {
    outcome->announced = "system\tno version set; falling back to the system toolkit";
    outcome->line = "CUDA system (no version set)";
    outcome->quiet_start = 1;
    return 1;
  }
  return request->fs->kind(request->fs->self, global) == LEAN_MISSING;
}

/* A record naming a variable the layout or the working folder comes from: the full program
 * reads those from the environment as it is, the selection from the one before the hook. */
static int owns_layout(const struct lean_owned* owned, size_t count) {
  static const char* const names[] = {"CUDAENV_ROOT",        "HOME", "CUDAENV_SHARED_ROOT",
                                      "CUDAENV_SYSTEM_ROOT", "PWD",  LEAN_STATE_VARIABLE};
  for (size_t i = 0; i < count; ++i) {
    for (size_t j = 0; j < sizeof names / sizeof *names; ++j) {
      if (!strcmp(owned[i].variable, names[j])) return 1;
    }
  }
  return 0;
}

static int quiet(const struct environment* env) {
  const char* value = value_of(env, "CUDAENV_QUIET");
  return value && *value && strcmp(value, "0") != 0;
}

int lean_hook_env(char** environ, const char* cwd, enum lean_dialect dialect, struct lean_plan* memory, struct lean_text* code,
                  struct lean_text* messages) {
  struct environment env, pristine;
  if (!lean_environment_is_plain(environ) || !lean_is_plain_absolute(cwd) || !read_environment(memory, environ, &env)) return 0;
  const char* state_text = value_of(&env, LEAN_STATE_VARIABLE);
  int first_run = state_text == NULL;
  size_t state_size = first_run ? 0 : strlen(state_text);
  struct lean_memory state_memory = lean_plan_memory(memory);
  struct lean_state old;
  if (state_size > LEAN_STATE_LIMIT || !lean_parse_state(&state_memory, first_run ? "" : state_text, state_size, &old) ||
      owns_layout(old.entries, old.entry_count) || owns_layout(old.values, old.value_count)) {
    return 0;
  }
  struct lean_request request = {&lean_disk, lean_revert_state(&state_memory, environ, &old), cwd, NULL, ""};
  struct lean_roots roots;
  if (!request.environ || !read_environment(memory, request.environ, &pristine) || !lean_find_roots(&request, memory, &roots)) {
    return 0;
  }
  const char* version_override = lean_env_value(request.environ, "CUDAENV_VERSION");
  const char* project = NULL;
  const char* global = lean_join(memory, roots.user_root, "version");
  /* Stamps are taken before the files are read, as run_hook does. */
  struct fast_path fast;
  if (!global || !lean_find_project(memory, &lean_disk, cwd, &project) ||
      !fast_path_for(memory, cwd, project, version_override ? version_override : "", &roots, &fast)) {
    return 0;
  }
  struct outcome outcome;
  if (!decide(memory, &request, &roots, global, &outcome)) return 0;

  struct environment after;
  struct lean_state next;
  memset(&next, 0, sizeof next);
  next.announced = outcome.announced;
  next.notice_key = ""; /* no notices: an old key is dropped */
  struct lean_text state = {NULL, 0, 0, 0};
  if (!copy_environment(memory, &pristine, &after) || !apply(memory, &after, &outcome.change, &next)) return 0;
  lean_format_state(&next, &state);
  char* state_value = state.failed ? NULL : lean_allocate(memory, state.size + 1);
  if (state_value) memcpy(state_value, state.data, state.size), state_value[state.size] = '\0';
  free(state.data);
  /* Larger, bounded() would leave [env] or everything out and say so. */
  if (!state_value || state.size + NOTICE_LINE_SIZE > LEAN_STATE_LIMIT || !set_value(&after, LEAN_STATE_VARIABLE, state_value))
    return 0;

  int silent_start = first_run && (outcome.quiet_start || !*outcome.announced);
  if (strcmp(next.announced, old.announced) != 0 && !silent_start && !quiet(&env)) {
    const char* line = *outcome.announced ? outcome.line : NULL;
    if (line && !lean_is_terminal_safe(line)) return 0; /* print_note() would escape it */
    lean_append_all(messages, line ? "cudaenv: " : "cudaenv: no CUDA toolkit selected", line ? line : "", "\n", (char*)NULL);
  }

  size_t count = old.entry_count + next.entry_count + old.value_count + next.value_count + 1, n = 0;
  const char** names = lean_allocate(memory, count * sizeof *names);
  if (!names) return 0;
  for (size_t i = 0; i < old.entry_count; ++i) names[n++] = old.entries[i].variable;
  for (size_t i = 0; i < next.entry_count; ++i) names[n++] = next.entries[i].variable;
  for (size_t i = 0; i < old.value_count; ++i) names[n++] = old.values[i].variable;
  for (size_t i = 0; i < next.value_count; ++i) names[n++] = next.values[i].variable;
  names[n++] = LEAN_STATE_VARIABLE;
  return append_update(&env, &after, names, n, dialect, code) && append_fast_path(&fast, dialect, code) && !code->failed &&
         !messages->failed;
}
