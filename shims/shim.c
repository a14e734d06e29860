/* cudaenv-shim: every file in a root's shims/ is this program under another name. It runs
 * the program the last resolution for this place recorded (src/replay/record.h), where its
 * inputs are the same and every file it rested on is as it was: no shell, no subprocess, no
 * parsing beyond the record. Anything else (the first run in a folder, a change, an error) it
 * hands, with its arguments and environment untouched, to `cudaenv shim`, which resolves as
 * every other command does, records the outcome and runs it. C on musl, so that it starts in
 * microseconds: it runs once per compiler call in a build. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/record.h"

extern char** environ;

enum { PATH_SIZE = 4096 };

/* The record at `path`, if it is the user's own regular file, whole: a buffer to free. */
static char* read_record(const char* path, size_t* size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return NULL;
  struct stat st;
  char* data = NULL;
  /* Another user's record, or one others may write, could run anything as this user. */
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022) &&
      st.st_size <= REPLAY_RECORD_LIMIT)
    data = malloc((size_t)st.st_size + 1);
  if (data && read(fd, data, (size_t)st.st_size + 1) != (ssize_t)st.st_size) {
    free(data);
    data = NULL;
  }
  close(fd);
  if (data) *size = (size_t)st.st_size;
  return data;
}

/* Runs the record at `path` if it holds for `inputs`; returns where it does not. */
static void replay(const char* path, const char* inputs, size_t inputs_size, char** argv) {
  size_t size = 0;
  char* text = read_record(path, &size);
  static struct replay_record record;
  if (!text || !replay_parse(text, size, &record) || record.inputs_size != inputs_size ||
      memcmp(record.inputs, inputs, inputs_size) != 0) {
    free(text);
    return;
  }
  for (size_t i = 0; i < record.watch_count; ++i) {
    if (!replay_watch_holds(&record.watches[i])) {
      free(text);
      return;
    }
  }
  replay_run(&record, argv, environ);
  free(text);
}

/* `cudaenv shim RECORD SHIM ARGV...`: the CLI as rehash links it into the shims folder
 * (.cudaenv), or beside this program. */
static void resolve(int argc, char** argv, const char* self, const char* record) {
  static const char* const names[] = {".cudaenv", "cudaenv"};
  const char* slash = strrchr(self, '/');
  size_t dir = slash ? (size_t)(slash - self) + 1 : 0;
  char** args = malloc(((size_t)argc + 5) * sizeof *args);
  for (size_t i = 0; args && i < sizeof names / sizeof names[0]; ++i) {
    char cli[PATH_SIZE];
    if (dir + strlen(names[i]) >= sizeof cli) break;
    memcpy(cli, self, dir);
    strcpy(cli + dir, names[i]);
    if (access(cli, X_OK) != 0) continue;
    args[0] = cli;
    args[1] = "shim";
    args[2] = (char*)record;
    args[3] = (char*)self;
    for (int j = 0; j < argc; ++j) args[4 + j] = argv[j];
    args[4 + argc] = NULL;
    execve(cli, args, environ);
  }
  fprintf(stderr,
          "cudaenv: error: cudaenv is missing beside %s\n"
          "  run `cudaenv rehash`, or reinstall cudaenv\n",
          self);
  exit(127);
}

/* <root>/cache/shim/<hash of the inputs> for a shim in <root>/shims; "-" for one elsewhere. */
static void record_path(const char* self, const char* inputs, size_t size, char* out) {
  const char* name = strrchr(self, '/');
  if (!name || name == self) return;
  size_t shims = (size_t)(name - self);
  if (shims < 6 || memcmp(self + shims - 6, "/shims", 6) != 0) return;
  unsigned key = (unsigned)(replay_hash(inputs, size) & 0xffff);
  snprintf(out, PATH_SIZE, "%.*s/cache/shim/%04x", (int)(shims - 6), self, key);
}

int main(int argc, char** argv) {
  static char self[PATH_SIZE], cwd[PATH_SIZE], inputs[REPLAY_RECORD_LIMIT], record[PATH_SIZE];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) n = 0, strcpy(self, "/proc/self/exe");
  else self[n] = '\0';
  const char* name = argc > 0 && argv[0] ? argv[0] : "";
  if (strrchr(name, '/')) name = strrchr(name, '/') + 1;
  size_t size = 0;
  if (argc > 0 && getcwd(cwd, sizeof cwd)) size = replay_inputs(environ, name, self, cwd, inputs, sizeof inputs);
  strcpy(record, "-");
  if (size) record_path(self, inputs, size, record);
  if (strcmp(record, "-") != 0) replay(record, inputs, size, argv);
  resolve(argc, argv, self, record);
  return 127;
}
