#define _POSIX_C_SOURCE 200809L
#include "lean/lean_select.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lean/lean_toml.h"

struct lean_block {
  struct lean_block* next;
};

void* lean_allocate(struct lean_plan* plan, size_t size) {
  struct lean_block* block = malloc(sizeof(struct lean_block) + size);
  if (!block) return NULL;
  block->next = plan->blocks;
  plan->blocks = block;
  return block + 1;
}

static void* allocate(void* plan, size_t size) { return lean_allocate(plan, size); }

struct lean_memory lean_plan_memory(struct lean_plan* plan) {
  struct lean_memory memory = {allocate, plan};
  return memory;
}

void lean_plan_free(struct lean_plan* plan) {
  while (plan->blocks) {
    struct lean_block* next = plan->blocks->next;
    free(plan->blocks);
    plan->blocks = next;
  }
  plan->program = NULL;
  plan->envp = NULL;
}

char* lean_concat(struct lean_plan* plan, ...) {
  va_list args;
  size_t size = 1;
  va_start(args, plan);
  for (const char* part; (part = va_arg(args, const char*));) size += strlen(part);
  va_end(args);
  char* out = lean_allocate(plan, size);
  if (!out) return NULL;
  char* end = out;
  va_start(args, plan);
  for (const char* part; (part = va_arg(args, const char*));) end = stpcpy(end, part);
  va_end(args);
  return out;
}

char* lean_copy(struct lean_plan* plan, const char* text) { return lean_concat(plan, text, (char*)NULL); }

/* `dir` / `name` as std::filesystem joins them (no second slash after a trailing one). */
char* lean_join(struct lean_plan* plan, const char* dir, const char* name) {
  size_t n = strlen(dir);
  return lean_concat(plan, dir, n && dir[n - 1] == '/' ? "" : "/", name, (char*)NULL);
}

/* An absolute path that lexically_normal() leaves as it is: no empty, "." or ".." segment
 * and no trailing slash. Others the full resolver spells. */
int lean_is_plain_absolute(const char* path) {
  if (path[0] != '/') return 0;
  if (path[1] == '\0') return 1;
  for (const char* segment = path + 1;;) {
    const char* end = strchr(segment, '/');
    size_t n = end ? (size_t)(end - segment) : strlen(segment);
    if (n == 0 || (n == 1 && segment[0] == '.') || (n == 2 && segment[0] == '.' && segment[1] == '.')) return 0;
    if (!end) return 1;
    segment = end + 1;
  }
}

/* The value of a variable set and not empty (env_get), or NULL. */
const char* lean_env_value(char** environ, const char* name) {
  size_t n = strlen(name);
  for (char** entry = environ; *entry; ++entry) {
    if (strncmp(*entry, name, n) == 0 && (*entry)[n] == '=') return (*entry)[n + 1] ? *entry + n + 1 : NULL;
  }
  return NULL;
}

int lean_environment_is_plain(char** environ) {
  enum { MOST = 4096 };
  static size_t lengths[MOST];
  size_t count = 0;
  for (; environ[count]; ++count) {
    const char* eq = strchr(environ[count], '=');
    if (count == MOST || !eq || eq == environ[count]) return 0;
    lengths[count] = (size_t)(eq - environ[count]);
  }
  for (size_t i = 0; i < count; ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (lengths[i] == lengths[j] && environ[i][0] == environ[j][0] && !memcmp(environ[i], environ[j], lengths[i])) {
        return 0;
      }
    }
  }
  return 1;
}

/* A root setting as layout_from_env() takes it unchanged: absolute, plain, no ':' or newline. */
static int is_root_setting(const char* path) { return lean_is_plain_absolute(path) && !strpbrk(path, ":\n"); }

int lean_find_roots(const struct lean_request* request, struct lean_plan* plan, struct lean_roots* roots) {
  if (!lean_environment_is_plain(request->environ)) return 0;
  const char* user = lean_env_value(request->environ, "CUDAENV_ROOT");
  char* derived = NULL;
  if (!user && request->self_exe) {
    /* A shim in <root>/shims knows its root where CUDAENV_ROOT is not exported. */
    char* dir = lean_copy(plan, request->self_exe);
    char* slash = dir ? strrchr(dir, '/') : NULL;
    if (slash && slash > dir) {
      *slash = '\0';
      char* parent = strrchr(dir, '/');
      if (parent && strcmp(parent + 1, "shims") == 0) {
        *(parent == dir ? parent + 1 : parent) = '\0';
        derived = dir;
      }
    }
  }
  if (!user) user = derived;
  if (user) {
    if (!is_root_setting(user)) return 0;
  } else {
    const char* home = lean_env_value(request->environ, "HOME");
    if (!home) return 0;
    user = lean_join(plan, home, ".cudaenv");
    if (!user || !lean_is_plain_absolute(user)) return 0;
  }
  roots->user_root = user;
  roots->versions[0] = lean_join(plan, user, "versions");
  roots->count = 1;
  roots->shims = lean_join(plan, user, "shims");
  if (!roots->shims) return 0;
  /* shared_root_variable(): the new name first, then the deprecated one. */
  const char* shared = lean_env_value(request->environ, "CUDAENV_SHARED_ROOT");
  if (!shared) shared = lean_env_value(request->environ, "CUDAENV_SYSTEM_ROOT");
  if (shared) {
    if (!is_root_setting(shared)) return 0;
    if (strcmp(shared, user) != 0) roots->versions[roots->count++] = lean_join(plan, shared, "versions");
  }
  for (size_t i = 0; i < roots->count; ++i) {
    if (!roots->versions[i]) return 0;
  }
  return 1;
}

int lean_find_project(struct lean_plan* plan, const struct lean_fs* fs, const char* cwd, const char** path) {
  *path = NULL;
  char* dir = lean_copy(plan, cwd);
  if (!dir || !lean_is_plain_absolute(dir)) return 0;
  while (1) {
    char* candidate = lean_join(plan, dir, "cuda.toml");
    if (!candidate) return 0;
    enum lean_kind kind = fs->kind(fs->self, candidate);
    if (kind == LEAN_OTHER) return 0;
    if (kind == LEAN_FILE) {
      *path = candidate;
      return 1;
    }
    if (strcmp(dir, "/") == 0) return 1;
    char* slash = strrchr(dir, '/');
    *(slash == dir ? slash + 1 : slash) = '\0';
  }
}

/* The project file read (through the disk's cache of large ones, under the user root's cache/):
 * 1, with `text` what `project` points into (free it), or 0 unsure. */
static int read_project(struct lean_plan* plan, const struct lean_request* request, const struct lean_roots* roots,
                        const char* path, struct lean_cuda_toml* project, char** text) {
  const struct lean_fs* fs = request->fs;
  if (fs->read_cuda_toml) {
    const char* cache = lean_join(plan, roots->user_root, "cache");
    return cache && fs->read_cuda_toml(fs->self, path, cache, project, text);
  }
  size_t size = 0;
  *text = fs->read_file(fs->self, path, LEAN_SMALL_FILE_LIMIT, &size);
  return *text && lean_read_cuda_toml(*text, size, project);
}

int lean_list_versions(const struct lean_fs* fs, const char* dir, void (*each)(void* context, const char* name, int not_a_link),
                       void* context) {
  return (fs->list_versions ? fs->list_versions : fs->list_dir)(fs->self, dir, each, context);
}

/* The first line of the global version file that is not blank or a comment, or NULL. */
static int read_global(struct lean_plan* plan, const struct lean_request* request, const char* file, const char** value) {
  *value = NULL;
  if (request->fs->kind(request->fs->self, file) == LEAN_MISSING) return 1;
  size_t size = 0;
  char* text = request->fs->read_file(request->fs->self, file, LEAN_SMALL_FILE_LIMIT, &size);
  if (!text) return 0;
  int ok = 1;
  for (const char* line = text; line < text + size && !*value;) {
    const char* end = memchr(line, '\n', (size_t)(text + size - line));
    if (!end) end = text + size;
    const char* begin = line;
    const char* last = end;
    while (begin < last && strchr(" \t\r", *begin)) ++begin;
    while (last > begin && strchr(" \t\r", last[-1])) --last;
    if (begin < last && *begin != '#') {
      char* copy = lean_allocate(plan, (size_t)(last - begin) + 1);
      if (!copy) ok = 0;
      else *value = memcpy(copy, begin, (size_t)(last - begin)), copy[last - begin] = '\0';
    }
    line = end + 1;
  }
  free(text);
  return ok;
}

/* lean_parse_version(): 1 to 4 dot-separated numbers of at most 9 digits. */
int lean_parse_version(const char* text, long parts[4]) {
  int count = 0;
  for (const char* p = text;; ++p) {
    if (count == 4) return 0;
    long value = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; ++p, ++digits) value = value * 10 + (*p - '0');
    if (digits == 0 || digits > 9) return 0;
    parts[count++] = value;
    if (*p == '\0') return count;
    if (*p != '.') return 0;
  }
}

struct best_match {
  const struct lean_request* request;
  long wanted[4];
  int wanted_count;
  const char* shadowing_dir; /* the user's versions/, whose names hide the shared root's */
  struct lean_plan* plan;
  char* name;
  long parts[4];
  int count;
  int failed;
};

int lean_compare_versions(const long* a, int a_count, const long* b, int b_count) {
  for (int i = 0; i < a_count && i < b_count; ++i) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a_count - b_count;
}

/* A dangling link is an entry too (ToolkitIndex::find): listed, and reported as broken. */
static int entry_exists(const struct lean_fs* fs, const char* path) {
  char target[4096];
  return fs->kind(fs->self, path) != LEAN_MISSING || fs->read_link(fs->self, path, target, sizeof target) >= 0;
}

/* match_toolkit() for a prefix: the newest version it is a prefix of, by name on a tie. */
static void consider(void* context, const char* name, int not_a_link) {
  (void)not_a_link;
  struct best_match* best = context;
  /* Most of a long listing differs in its first number: refused before parsing the rest. */
  long first = 0;
  int digits = 0;
  for (const char* p = name; *p >= '0' && *p <= '9' && digits <= 9; ++p, ++digits) first = first * 10 + (*p - '0');
  if (digits == 0 || digits > 9 || first != best->wanted[0]) return;
  long parts[4];
  int count = name[0] == '.' ? 0 : lean_parse_version(name, parts);
  if (count < best->wanted_count || lean_compare_versions(best->wanted, best->wanted_count, parts, best->wanted_count) != 0)
    return;
  if (best->name) {
    int order = lean_compare_versions(parts, count, best->parts, best->count);
    if (order < 0 || (order == 0 && strcmp(name, best->name) >= 0)) return;
  }
  if (best->shadowing_dir) {
    char* shadow = lean_join(best->plan, best->shadowing_dir, name);
    if (!shadow || entry_exists(best->request->fs, shadow)) {
      best->failed |= !shadow;
      return;
    }
  }
  best->name = lean_copy(best->plan, name);
  best->failed |= !best->name;
  memcpy(best->parts, parts, sizeof parts);
  best->count = count;
}

/* The versions/ entry the request names: `dir` gets its root's versions/, NULL when none. */
static int find_toolkit(struct lean_plan* plan, const struct lean_request* request, const struct lean_roots* roots,
                        const char* wanted, const char** dir, const char** name) {
  const struct lean_fs* fs = request->fs;
  *name = NULL;
  for (size_t i = 0; i < roots->count; ++i) {
    char* entry = lean_join(plan, roots->versions[i], wanted);
    if (!entry) return 0;
    if (entry_exists(fs, entry)) {
      *dir = roots->versions[i];
      *name = wanted;
      return 1;
    }
  }
  struct best_match best;
  memset(&best, 0, sizeof best);
  best.request = request;
  best.plan = plan;
  best.wanted_count = lean_parse_version(wanted, best.wanted);
  if (best.wanted_count == 0) return 1;
  for (size_t i = 0; i < roots->count; ++i) {
    const char* found = best.name;
    best.shadowing_dir = i ? roots->versions[0] : NULL;
    lean_list_versions(fs, roots->versions[i], consider, &best);
    if (best.name != found) *dir = roots->versions[i];
  }
  *name = best.name;
  return !best.failed;
}

/* prepend_entry(): `entry` first, its other occurrences dropped. */
static char* prepend_entry(struct lean_plan* plan, const char* list, const char* entry) {
  size_t entry_size = strlen(entry);
  char* out = lean_allocate(plan, entry_size + (list ? strlen(list) : 0) + 2);
  if (!out) return NULL;
  char* end = stpcpy(out, entry);
  for (const char* part = list; part;) {
    const char* colon = strchr(part, ':');
    size_t n = colon ? (size_t)(colon - part) : strlen(part);
    if (!(n == entry_size && memcmp(part, entry, n) == 0)) {
      *end++ = ':';
      memcpy(end, part, n);
      end += n;
    }
    part = colon ? colon + 1 : NULL;
  }
  *end = '\0';
  return out;
}

enum { CHANGED = 8 };

/* The project's arch list, as toolkit_env_change() sets it for every toolkit. */
static int arch_variables(struct lean_plan* plan, const struct lean_cuda_toml* project, struct lean_change* change) {
  if (!project || !project->arch_count) return 1;
  /* torch wants "8.9;9.0;8.6+PTX", CMake "89;90;86" (see core/toolkit_env.cpp). */
  size_t size = 0;
  for (size_t i = 0; i < project->arch_count; ++i) size += project->arch[i].size + 1;
  char* torch = lean_allocate(plan, size);
  char* cmake = lean_allocate(plan, size);
  if (!torch || !cmake) return 0;
  char* t = torch;
  char* c = cmake;
  for (size_t i = 0; i < project->arch_count; ++i) {
    if (i) *t++ = ';', *c++ = ';';
    const struct lean_span arch = project->arch[i];
    memcpy(t, arch.text, arch.size);
    t += arch.size;
    for (size_t j = 0; j < arch.size && arch.text[j] != '+'; ++j) {
      if (arch.text[j] != '.') *c++ = arch.text[j];
    }
  }
  *t = *c = '\0';
  struct lean_variable torch_list = {"TORCH_CUDA_ARCH_LIST", torch}, cmake_list = {"CUDAARCHS", cmake};
  change->set[change->set_count++] = torch_list;
  change->set[change->set_count++] = cmake_list;
  return 1;
}

/* toolkit_env_change(): what the toolkit at `home` needs (NULL: the system toolkit, which
 * needs only the project's arch list). */
static int toolkit_change(struct lean_plan* plan, const char* home, const struct lean_cuda_toml* project,
                          struct lean_change* change) {
  memset(change, 0, sizeof *change);
  if (home) {
    const char* bin = lean_concat(plan, home, "/bin", (char*)NULL);
    const char* lib = lean_concat(plan, home, "/lib64", (char*)NULL);
    const char* nvcc = lean_concat(plan, home, "/bin/nvcc", (char*)NULL);
    if (!bin || !lib || !nvcc) return 0;
    struct lean_change toolkit = {{{"PATH", bin}, {"LD_LIBRARY_PATH", lib}},
                                  2,
                                  {{"CUDA_HOME", home}, {"CUDA_PATH", home}, {"CUDAToolkit_ROOT", home}, {"CUDACXX", nvcc}},
                                  4};
    *change = toolkit;
  }
  return arch_variables(plan, project, change);
}

/* apply_env_change(): the variables `change` gives, as NAME=value. */
static int changed_variables(struct lean_plan* plan, char** environ, const struct lean_change* change, char* out[CHANGED],
                             size_t* count) {
  size_t n = 0;
  for (size_t i = 0; i < change->prepend_count; ++i) {
    const struct lean_variable* entry = &change->prepend[i];
    char* value = prepend_entry(plan, lean_env_value(environ, entry->name), entry->value);
    out[n++] = value ? lean_concat(plan, entry->name, "=", value, (char*)NULL) : NULL;
  }
  for (size_t i = 0; i < change->set_count; ++i)
    out[n++] = lean_concat(plan, change->set[i].name, "=", change->set[i].value, (char*)NULL);
  for (size_t i = 0; i < n; ++i) {
    if (!out[i]) return 0;
  }
  *count = n;
  return 1;
}

static int same_name(const char* a, const char* b) {
  while (*a == *b && *a != '=') ++a, ++b;
  return *a == '=' && *b == '=';
}

/* The caller's environment with `changed` replacing or joining its entries. */
static char** environment_with(struct lean_plan* plan, char** environ, char* changed[], size_t count) {
  size_t size = 0;
  while (environ[size]) ++size;
  char** envp = lean_allocate(plan, (size + count + 1) * sizeof *envp);
  if (!envp) return NULL;
  int used[CHANGED] = {0};
  size_t n = 0;
  for (char** entry = environ; *entry; ++entry) {
    envp[n] = *entry;
    for (size_t i = 0; i < count; ++i) {
      if (same_name(*entry, changed[i])) envp[n] = changed[i], used[i] = 1;
    }
    ++n;
  }
  for (size_t i = 0; i < count; ++i) {
    if (!used[i]) envp[n++] = changed[i];
  }
  envp[n] = NULL;
  return envp;
}

/* find_on_path(): the first executable `program` in a PATH folder other than `skip`; `found`
 * NULL when there is none. 0 (unsure) at a folder lexically_normal() would spell otherwise. */
int lean_find_on_path(struct lean_plan* plan, const struct lean_fs* fs, const char* path, const char* program, const char* skip,
                      char** found) {
  *found = NULL;
  for (const char* entry = path; entry;) {
    const char* colon = strchr(entry, ':');
    size_t n = colon ? (size_t)(colon - entry) : strlen(entry);
    if (n) {
      char* dir = lean_allocate(plan, n + 1);
      if (!dir) return 0;
      memcpy(dir, entry, n);
      dir[n] = '\0';
      if (!lean_is_plain_absolute(dir)) return 0;
      if (strcmp(dir, skip) != 0) {
        char* candidate = lean_join(plan, dir, program);
        if (!candidate) return 0;
        if (fs->is_executable(fs->self, candidate)) {
          *found = candidate;
          return 1;
        }
      }
    }
    entry = colon ? colon + 1 : NULL;
  }
  return 1;
}

static int has_variable(char** environ, const char* name) {
  size_t n = strlen(name);
  for (char** entry = environ; *entry; ++entry) {
    if (strncmp(*entry, name, n) == 0 && (*entry)[n] == '=') return 1;
  }
  return 0;
}

int lean_system_toolkit_exists(struct lean_plan* plan, const struct lean_fs* fs, const char* path, const char* shims,
                               int* exists) {
  char* nvcc = NULL;
  if (!path || !lean_find_on_path(plan, fs, path, "nvcc", shims, &nvcc)) return 0;
  *exists = nvcc || fs->is_executable(fs->self, "/usr/local/cuda/bin/nvcc");
  return 1;
}

/* The system toolkit (resolve_request() for "system"): the program is the first on PATH
 * outside the shims, and only the project's arch list is set. */
static int plan_system(struct lean_plan* plan, const struct lean_request* request, const struct lean_roots* roots,
                       const struct lean_cuda_toml* project) {
  const struct lean_fs* fs = request->fs;
  /* find_system_toolkit() looks past the hook's own PATH entries, which its state names. */
  if (has_variable(request->environ, "__CUDAENV_STATE")) return 0;
  const char* path = lean_env_value(request->environ, "PATH");
  int exists = 0;
  if (!lean_system_toolkit_exists(plan, fs, path, roots->shims, &exists) || !exists) return 0;
  if (!lean_find_on_path(plan, fs, path, request->program, roots->shims, &plan->program) || !plan->program) return 0;
  struct lean_change change;
  char* changed[CHANGED];
  size_t count = 0;
  if (!toolkit_change(plan, NULL, project, &change) || !changed_variables(plan, request->environ, &change, changed, &count)) {
    return 0;
  }
  plan->envp = environment_with(plan, request->environ, changed, count);
  return plan->envp != NULL;
}

enum { SELECTED = 1, SYSTEM = 2 };

/* The selection as select_toolkit() makes it, from the project file's text (NULL: none):
 * SELECTED, SYSTEM where nothing or "system" is asked for (`out` then holds the roots and the
 * project), or 0 unsure. */
static int select_with_project(const struct lean_request* request, struct lean_plan* plan, const char* project_path,
                               char** project_text, struct lean_cuda_toml* project, struct lean_selection* out) {
  const struct lean_fs* fs = request->fs;
  memset(out, 0, sizeof *out);
  if (!lean_find_roots(request, plan, &out->roots)) return 0;
  out->has_project = project_path != NULL;
  if (out->has_project && !read_project(plan, request, &out->roots, project_path, project, project_text)) return 0;
  out->project_warns = out->has_project && project->unknown_keys > 0;
  out->project_env = out->has_project ? project->env_count : 0;

  const char* wanted = lean_env_value(request->environ, "CUDAENV_VERSION");
  out->origin = LEAN_ORIGIN_ENVIRONMENT;
  if (!wanted && out->has_project && project->version.size) {
    char* copy = lean_allocate(plan, project->version.size + 1);
    if (!copy) return 0;
    memcpy(copy, project->version.text, project->version.size);
    copy[project->version.size] = '\0';
    wanted = copy;
    out->origin = LEAN_ORIGIN_PROJECT;
    out->origin_file = project_path;
  }
  if (!wanted) {
    out->origin = LEAN_ORIGIN_GLOBAL;
    out->origin_file = lean_join(plan, out->roots.user_root, "version");
    if (!out->origin_file || !read_global(plan, request, out->origin_file, &wanted)) return 0;
  }
  /* None at all falls back to the system toolkit (select_request()); an invalid one is an error. */
  out->fallback = !wanted;
  if (!wanted || !strcmp(wanted, "system")) return SYSTEM;
  if (!lean_is_version_request(wanted, strlen(wanted))) return 0;
  out->request = wanted;

  const char* dir = NULL;
  if (!find_toolkit(plan, request, &out->roots, wanted, &dir, &out->name) || !out->name) return 0;
  out->root = dir == out->roots.versions[0] ? 0 : 1;
  const char* entry = lean_join(plan, dir, out->name);
  if (!entry) return 0;
  char target[4096];
  out->home = entry;
  if (fs->read_link(fs->self, entry, target, sizeof target) >= 0) {
    if (target[0] != '/') return 0; /* relative: the full resolver normalises it */
    out->home = lean_copy(plan, target);
  }
  const char* bin = out->home ? lean_join(plan, out->home, "bin") : NULL;
  if (!bin || fs->kind(fs->self, bin) != LEAN_DIRECTORY) return 0;
  return toolkit_change(plan, out->home, out->has_project ? project : NULL, &out->change) ? SELECTED : 0;
}

static int plan_program(const struct lean_request* request, struct lean_plan* plan, const char* project_path,
                        char** project_text) {
  const char* program = request->program;
  /* shim_full.cpp refuses to run as either of cudaenv's own shim programs */
  if (!*program || strchr(program, '/') || !strcmp(program, ".") || !strcmp(program, "..") || !strcmp(program, "cudaenv-shim") ||
      !strcmp(program, "cudaenv-shim-full")) {
    return 0;
  }
  struct lean_cuda_toml project;
  struct lean_selection selection;
  int selected = select_with_project(request, plan, project_path, project_text, &project, &selection);
  if (selected == SYSTEM) return plan_system(plan, request, &selection.roots, selection.has_project ? &project : NULL);
  if (selected != SELECTED) return 0;
  const char* bin = lean_join(plan, selection.home, "bin");
  plan->program = bin ? lean_join(plan, bin, program) : NULL;
  if (!plan->program || !request->fs->is_executable(request->fs->self, plan->program)) return 0;

  char* changed[CHANGED];
  size_t count = 0;
  if (!changed_variables(plan, request->environ, &selection.change, changed, &count)) return 0;
  plan->envp = environment_with(plan, request->environ, changed, count);
  return plan->envp != NULL;
}

int lean_plan_program(const struct lean_request* request, struct lean_plan* plan) {
  plan->program = NULL;
  plan->envp = NULL;
  plan->blocks = NULL;
  char* project_text = NULL;
  const char* project_path = NULL;
  /* A cuda.toml is read even where CUDAENV_VERSION decides: its arch list still counts, and
   * where it is broken the full resolver warns. */
  int ok = lean_find_project(plan, request->fs, request->cwd, &project_path) &&
           plan_program(request, plan, project_path, &project_text);
  free(project_text);
  return ok;
}

int lean_select_toolkit(const struct lean_request* request, struct lean_plan* memory, struct lean_selection* selection) {
  char* project_text = NULL;
  const char* project_path = NULL;
  struct lean_cuda_toml project;
  memset(selection, 0, sizeof *selection);
  int ok = lean_find_project(memory, request->fs, request->cwd, &project_path) &&
           select_with_project(request, memory, project_path, &project_text, &project, selection) == SELECTED &&
           !selection->project_warns;
  free(project_text);
  return ok;
}
