#ifndef CUDAENV_LEAN_FS_H
#define CUDAENV_LEAN_FS_H
/* The file system as the lean resolver sees it: the disk in the shim (lean_os.h), an
 * in-memory tree in the unit tests, through the same calls as util/file_system.h. */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum lean_kind { LEAN_MISSING, LEAN_FILE, LEAN_DIRECTORY, LEAN_OTHER };

/* kSmallFileLimit in util/file_system.h: the most a cuda.toml or version file may hold */
#define LEAN_SMALL_FILE_LIMIT ((size_t)1 << 20)

struct lean_cuda_toml;

struct lean_fs {
  void* self;
  /* Follows symlinks, like stat(2). */
  enum lean_kind (*kind)(void* self, const char* path);
  int (*is_executable)(void* self, const char* path);
  /* A regular file of at most `limit` bytes, in a buffer the caller frees; NULL otherwise. */
  char* (*read_file)(void* self, const char* path, size_t limit, size_t* size);
  /* Calls `each` with every entry's name but "." and ".." and whether the listing knows it is
   * no symlink (d_type), so that a caller can skip reading a link; -1 when `path` is no folder. */
  int (*list_dir)(void* self, const char* path, void (*each)(void* context, const char* name, int not_a_link), void* context);
  /* The target of the symlink `path` into `buffer`, NUL-terminated: its length, or -1. */
  long (*read_link)(void* self, const char* path, char* buffer, size_t size);
  /* Optional, NULL where there are no caches (lean_cache.h): list_dir of a root's versions/;
   * and read_file of a cuda.toml (LEAN_SMALL_FILE_LIMIT) with lean_read_cuda_toml of its text
   * (1 read, 0 unsure), `cache_dir` the user root's cache/, `text` what the spans point into
   * (free it). Each gives what those calls give. */
  int (*list_versions)(void* self, const char* path, void (*each)(void* context, const char* name, int not_a_link),
                       void* context);
  int (*read_cuda_toml)(void* self, const char* path, const char* cache_dir, struct lean_cuda_toml* out, char** text);
};

#ifdef __cplusplus
}
#endif

#endif
