#ifndef CUDAENV_REPLAY_RECORD_H
#define CUDAENV_REPLAY_RECORD_H
/* A resolution record: what `cudaenv shim` decided for one program run in one place, so that
 * the shim can run it again without resolving. It holds
 *  - the inputs: the program's name, the shim, the working folder and the variables a
 *    resolution reads (replay_variables), exactly as they were;
 *  - the watches: every file-system fact the resolution rested on, each as stat(2) or lstat(2)
 *    saw it (a path missing, a file's identity, or a file's identity and content stamp);
 *  - the outcome: the program to run and the variables it gets.
 * The shim replays a record only where its inputs are byte for byte its own and every watch
 * still holds; anything else it hands to `cudaenv shim`, which resolves, writes a new record and
 * runs the same outcome through replay_run(). C, so that the static shim needs no C++ runtime;
 * the CLI links the same code.
 *
 * On disk: a line "cudaenv-replay 1", then items "<tag><length>:<bytes>\n": I the inputs, W a
 * watch ("<kind> <dev> <ino> <mode> <uid> <gid> <size> <mtime s> <ns> <ctime s> <ns> <path>"),
 * X the program, V a "NAME=value" it sets, and last Z, the checksum of all before it. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { REPLAY_RECORD_LIMIT = 64 * 1024, REPLAY_MAX_WATCHES = 256, REPLAY_MAX_VARIABLES = 64 };

/* The variables a resolution reads, NULL-terminated: `cudaenv shim` resolves in an environment
 * of these alone, so a record can depend on nothing else. */
extern const char* const replay_variables[];

/* The inputs of a run: `program` (the name the shim was run as), `shim` (its file), `cwd`
 * (getcwd()) and replay_variables as `environ` has them (the first entry of each name), into
 * `out`: its size, or 0 where they do not fit in `size` bytes. */
size_t replay_inputs(char** environ, const char* program, const char* shim, const char* cwd, char* out, size_t size);

/* 64-bit FNV-1a of `size` bytes, for the record's file name and its checksum. */
uint64_t replay_hash(const char* data, size_t size);

/* What a watch observes: a missing path ('m' following links, 'n' not following them), an
 * identity ('i', 'l': device, inode, type and permission bits, owner) or an identity and
 * content stamp ('c': also size, mtime and ctime, for a file read or a folder listed). */
struct replay_watch {
  char kind;
  unsigned long long dev, ino, mode, uid, gid, size;
  long long mtime_s, mtime_ns, ctime_s, ctime_ns;
  const char* path;
};

enum replay_look { REPLAY_IDENTITY, REPLAY_LINK_IDENTITY, REPLAY_CONTENT };

/* Observes `path` as `look` asks (a missing path included): 1, or 0 where stat(2) failed
 * otherwise (EACCES, ELOOP), which no record can rest on. */
int replay_observe(const char* path, enum replay_look look, struct replay_watch* watch);

/* Whether the file system still shows what `watch` recorded. */
int replay_watch_holds(const struct replay_watch* watch);

/* Whether a change after `started` (CLOCK_REALTIME) would show in the watch: its ctime is older
 * than `started` by more than the file system's timestamp tick could hide (20 ms; 2 s where its
 * times have whole seconds, as on file systems that keep no more). */
int replay_watch_settled(const struct replay_watch* watch, long long started_s, long long started_ns);

struct replay_record {
  const char* inputs;
  size_t inputs_size;
  struct replay_watch watches[REPLAY_MAX_WATCHES];
  size_t watch_count;
  const char* program;
  const char* variables[REPLAY_MAX_VARIABLES]; /* "NAME=value" */
  size_t variable_count;
};

/* `record` as its file holds it, into `out` (NULL: only measured): the size. */
size_t replay_format(const struct replay_record* record, char* out);

/* A record's file: 1 with `record` pointing into `text`, which parsing changes (its strings
 * end in NULs); 0 where it is not one replay_format() wrote, whole. */
int replay_parse(char* text, size_t size, struct replay_record* record);

/* The caller's environment with the record's variables set: an array to free(), its strings
 * the record's and `environ`'s; NULL when out of memory. */
char** replay_environment(const struct replay_record* record, char** environ);

/* Runs the record's program with `argv` (argv[0] becomes the program: nvcc finds nvcc.profile
 * beside it) in replay_environment(); returns only where execve(2) failed, with errno set and
 * argv as it was. */
void replay_run(const struct replay_record* record, char** argv, char** environ);

#ifdef __cplusplus
}
#endif

#endif
