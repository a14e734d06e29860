/* cudaenv: the program a user runs. C on musl, so it starts in a tenth of the time a glibc
 * program takes on a VM (glibc probes the CPU at start-up, and every probe traps to the
 * hypervisor): it answers the read-only commands a prompt or a script runs most
 * (`--version`, `versions`, `current`) itself where it is sure of the answer, from the lean
 * resolver the shim uses (src/lean), and the prompt hook's `hook-env` too in its common case
 * (lean/lean_hook.h; bench/start: 0.31-0.44 ms, against 1.69 ms through cudaenv-hook on glibc).
 * Everything else, and every case it is unsure of (an error, a warning, "system", --json,
 * [env], unusual text), it hands with argv and environment untouched to cudaenv-full, the C++
 * program that does it all, or for `hook-env` to cudaenv-hook, a static build of the same C++
 * code; the integration test front_vs_full.sh holds them to the same bytes. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lean/lean_hook.h"
#include "lean/lean_os.h"
#include "lean/lean_select.h"
#include "lean/lean_state.h"
#include "lean/lean_text.h"
#include "lean/lean_toolkits.h"

#ifndef CUDAENV_VERSION_STRING
#define CUDAENV_VERSION_STRING "0.0.0"
#endif

extern char** environ;

enum { PATH_SIZE = 4096 };

/* The companion program `name` beside this one (a build folder), else in PREFIX/libexec/cudaenv;
 * returns only when neither runs. */
static void run_companion(const char* name, char** argv, char* self, size_t self_size) {
  if (lean_self_exe(self, self_size) < 0) strcpy(self, "/proc/self/exe");
  char* slash = strrchr(self, '/');
  size_t dir = slash ? (size_t)(slash - self) + 1 : 0;
  for (int place = 0; place < 2; ++place) {
    char path[PATH_SIZE];
    const char* folder = place ? "../libexec/cudaenv/" : "";
    if (dir + strlen(folder) + strlen(name) >= sizeof path) break;
    memcpy(path, self, dir);
    strcpy(path + dir, folder);
    strcat(path, name);
    execve(path, argv, environ);
  }
}

static void run_full_program(char** argv) {
  char self[PATH_SIZE];
  run_companion("cudaenv-full", argv, self, sizeof self);
  fprintf(stderr,
          "cudaenv: error: cudaenv-full is missing beside %s and in its ../libexec/cudaenv\n"
          "  reinstall cudaenv (./install.sh) so its programs are installed together\n",
          self);
  exit(127);
}

/* `cudaenv hook-env --shell SHELL`, what the prompt hook runs: answered here in its common
 * case (lean/lean_hook.h), else by cudaenv-hook, the same code as cudaenv-full's, static, which
 * starts without the dynamic loader. Returns only when it is neither. */
static void run_hook(int argc, char** argv) {
  if (argc != 4 || strcmp(argv[1], "hook-env") || strcmp(argv[2], "--shell")) return;
  if (strcmp(argv[3], "bash") && strcmp(argv[3], "zsh") && strcmp(argv[3], "fish")) return;
  struct lean_plan memory = {NULL, NULL, NULL};
  struct lean_text code = {NULL, 0, 0, 0}, messages = {NULL, 0, 0, 0};
  char cwd[PATH_SIZE];
  if (lean_logical_working_dir(getenv("PWD"), cwd, sizeof cwd) == 0 &&
      lean_hook_env(environ, cwd, strcmp(argv[3], "fish") ? LEAN_POSIX : LEAN_FISH, &memory, &code, &messages)) {
    /* As run_hook_env() prints: the notes on stderr, then the code. */
    if (messages.size) fwrite(messages.data, 1, messages.size, stderr);
    if (code.size) fwrite(code.data, 1, code.size, stdout);
    exit(0);
  }
  lean_plan_free(&memory);
  free(code.data);
  free(messages.data);
  char self[PATH_SIZE];
  run_companion("cudaenv-hook", argv, self, sizeof self);
}

/* The parts of a line, each as terminal_safe() prints it. */
static void add(struct lean_text* out, ...) {
  va_list args;
  va_start(args, out);
  for (const char* part; (part = va_arg(args, const char*));) {
    if (!lean_is_terminal_safe(part)) out->failed = 1;
    lean_append(out, part, strlen(part));
  }
  va_end(args);
}

static void end_line(struct lean_text* out) { lean_append(out, "\n", 1); }

/* The parent folder of a plain absolute path, as path::parent_path() gives it. */
static char* parent_of(struct lean_plan* memory, const char* path) {
  char* copy = lean_copy(memory, path);
  char* slash = copy ? strrchr(copy, '/') : NULL;
  if (slash) slash[slash == copy ? 1 : 0] = '\0';
  return copy;
}

/* find_system_toolkit()'s home: 1 with `home` set (NULL: none), or 0 unsure. */
static int find_system_home(struct lean_plan* memory, const struct lean_roots* roots, const char** home) {
  const struct lean_fs* fs = &lean_disk;
  *home = NULL;
  const char* fallback = "/usr/local/cuda";
  int fallback_exists = fs->is_executable(fs->self, "/usr/local/cuda/bin/nvcc");
  struct lean_memory state_memory = lean_plan_memory(memory);
  /* Each name once: lean_find_roots() found the roots in `environ`. */
  char** pristine = lean_without_hook_changes(&state_memory, environ);
  const char* path = pristine ? lean_env_value(pristine, "PATH") : NULL;
  char* nvcc = NULL;
  if (!pristine) return 0;
  if (path && !lean_find_on_path(memory, fs, path, "nvcc", roots->shims, &nvcc)) return 0;
  if (nvcc) {
    /* follow_links(): /usr/bin/nvcc -> ... leads to the real toolkit folder. */
    char target[PATH_SIZE];
    for (int hops = 0; hops < 16 && fs->read_link(fs->self, nvcc, target, sizeof target) >= 0; ++hops) {
      if (target[0] != '/') return 0;
      nvcc = lean_copy(memory, target);
      if (!nvcc) return 0;
    }
    if (!lean_is_plain_absolute(nvcc)) return 0;
    const char* bin = parent_of(memory, nvcc);
    const char* found = bin ? parent_of(memory, bin) : NULL;
    const char* header = found ? lean_join(memory, found, "include/cuda.h") : NULL;
    const char* version = found ? lean_join(memory, found, "version.json") : NULL;
    if (!header || !version) return 0;
    /* A wrapper script in /usr/local/bin is not a toolkit; trust only a folder with headers. */
    int looks_like_toolkit = fs->kind(fs->self, header) == LEAN_FILE || fs->kind(fs->self, version) == LEAN_FILE;
    if (looks_like_toolkit || !fallback_exists) {
      *home = found;
      return 1;
    }
  }
  if (fallback_exists) *home = fallback;
  return 1;
}

/* Request::origin() */
static void add_origin(struct lean_text* out, const struct lean_selection* selection) {
  if (selection->origin == LEAN_ORIGIN_ENVIRONMENT) add(out, "set by CUDAENV_VERSION", (char*)NULL);
  else add(out, "set by ", selection->origin_file, (char*)NULL);
}

struct context {
  struct lean_plan memory;
  struct lean_request request;
  char cwd[PATH_SIZE];
};

/* Session::from_process() as the lean resolver sees it: 0 where it is unsure. */
static int start_session(struct context* context) {
  memset(context, 0, sizeof *context);
  if (lean_logical_working_dir(getenv("PWD"), context->cwd, sizeof context->cwd) != 0) return 0;
  struct lean_request request = {&lean_disk, environ, context->cwd, NULL, ""};
  context->request = request;
  return 1;
}

/* `cudaenv current` (cmd_show.cpp run_current) where a toolkit under versions/ is selected. */
static int current(struct context* context, struct lean_text* out) {
  struct lean_selection selection;
  if (!lean_select_toolkit(&context->request, &context->memory, &selection)) return 0;
  add(out, selection.name, " (", (char*)NULL);
  add_origin(out, &selection);
  add(out, ")", (char*)NULL);
  end_line(out);
  return 1;
}

/* `cudaenv versions [--bare]` (cmd_show.cpp run_versions) where a toolkit under versions/ is
 * selected, so that no warning is printed and "system" is not the active one. */
static int versions(struct context* context, int bare, struct lean_text* out) {
  struct lean_roots roots;
  struct lean_toolkits toolkits;
  if (!lean_find_roots(&context->request, &context->memory, &roots) ||
      !lean_list_toolkits(&lean_disk, &roots, &context->memory, &toolkits)) {
    return 0;
  }
  if (bare) {
    /* Printed as they are: --bare is for scripts. */
    for (size_t i = 0; i < toolkits.count; ++i) {
      lean_append(out, toolkits.items[i].name, strlen(toolkits.items[i].name));
      end_line(out);
    }
    return 1;
  }
  struct lean_selection selection;
  const char* system = NULL;
  if (!lean_select_toolkit(&context->request, &context->memory, &selection) ||
      !find_system_home(&context->memory, &roots, &system)) {
    return 0;
  }
  if (system) {
    add(out, "  system (", system, ")", (char*)NULL);
    end_line(out);
  }
  for (size_t i = 0; i < toolkits.count; ++i) {
    const struct lean_toolkit* toolkit = &toolkits.items[i];
    int active = toolkit->root == selection.root && !strcmp(toolkit->name, selection.name);
    add(out, active ? "* " : "  ", toolkit->name, (char*)NULL);
    if (toolkit->registered) add(out, " --> ", toolkit->home, (char*)NULL);
    if (toolkit->root == 1) {
      char* parent = lean_is_plain_absolute(toolkit->home) ? parent_of(&context->memory, toolkit->home) : NULL;
      if (!parent) return 0;
      add(out, " (shared: ", parent, ")", (char*)NULL);
    }
    if (!toolkit->present) add(out, " (missing: no bin/ folder)", (char*)NULL);
    if (active) {
      add(out, " (", (char*)NULL);
      add_origin(out, &selection);
      add(out, ")", (char*)NULL);
    }
    end_line(out);
  }
  return 1;
}

/* 1 when the command was answered here, with `out` what it prints. */
static int answer(int argc, char** argv, struct lean_text* out) {
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    add(out, "cudaenv " CUDAENV_VERSION_STRING, (char*)NULL);
    end_line(out);
    return !out->failed;
  }
  int bare = argc == 3 && !strcmp(argv[2], "--bare");
  int is_versions = argc >= 2 && !strcmp(argv[1], "versions") && (argc == 2 || bare);
  int is_current = argc == 2 && !strcmp(argv[1], "current");
  if (!is_versions && !is_current) return 0;
  struct context context;
  int ok = start_session(&context) && (is_versions ? versions(&context, bare, out) : current(&context, out));
  lean_plan_free(&context.memory);
  return ok && !out->failed;
}

int main(int argc, char** argv) {
  struct lean_text out = {NULL, 0, 0, 0};
  if (argc > 0 && answer(argc, argv, &out)) {
    /* Like the full program's printf: a closed stdout does not change the exit status. */
    if (out.size) fwrite(out.data, 1, out.size, stdout);
    return 0;
  }
  free(out.data);
  run_hook(argc, argv);
  if (argc > 0) run_full_program(argv);
  char* none[] = {"cudaenv", NULL};
  run_full_program(none);
  return 127;
}
