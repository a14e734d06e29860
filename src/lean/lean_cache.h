#ifndef CUDAENV_LEAN_CACHE_H
#define CUDAENV_LEAN_CACHE_H
/* Two caches that spare the lean resolver work it would repeat on every call, each giving
 * exactly what the uncached path gives, or nothing:
 *  - a root's versions/ index, <root>/cache/versions.index: its names as listed. Listing a
 *    folder of 1000 toolkits costs the kernel ~0.35 ms (ext4 hashes every name and sorts them
 *    into a tree at each opendir), reading the index a few microseconds;
 *  - a large cuda.toml's parse, <user root>/cache/cuda-toml.<hash of its path>: what
 *    lean_read_cuda_toml() gave, for files of LEAN_TOML_CACHE_MIN bytes or more.
 * Each records the stat(2) stamp of what it was made from and a time of the kernel's clock
 * taken (from a file it created) before reading it, and holds only while the stamp is the same
 * and changed strictly before that time: a change in the same timestamp tick as the reading
 * would leave the stamp as it was (lean_cache_is_fresh). Whoever misses reads as before and
 * rewrites the cache (a temporary file renamed over it); a cache that is missing, stale,
 * truncated, corrupt, oversized, no regular file or unreadable is read around, never trusted,
 * and a cache folder that cannot be written, is someone else's, is on another file system than
 * what it caches or on one that is not local is left alone. */

#include <stddef.h>

#include "lean/lean_fs.h"
#include "lean/lean_toml.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { LEAN_TOML_CACHE_MIN = 64 * 1024 };

struct lean_time {
  long long s;
  long ns;
};

/* What stat(2) says of a file or folder, as far as the caches care. */
struct lean_stamp {
  unsigned long long dev, ino, size;
  struct lean_time mtime, ctime;
};

/* Whether a cache made from `recorded`, read after `started`, still holds for `now`. */
int lean_cache_is_fresh(const struct lean_stamp* recorded, struct lean_time started, const struct lean_stamp* now);

enum { LEAN_CACHE_HEADER_MAX = 256 };

/* A cache file is one line, `magic` and the numbers of its stamp, start, body size and
 * checksum, then the body. lean_cache_header writes the line (at most LEAN_CACHE_HEADER_MAX
 * bytes; 0 where a time is negative); lean_cache_parse checks one: 1 with its parts set where
 * it is `magic`'s, complete, and its body what the checksum says, 0 otherwise. */
size_t lean_cache_header(char* out, const char* magic, const struct lean_stamp* stamp, struct lean_time started, const char* body,
                         size_t body_size);
int lean_cache_parse(const char* text, size_t size, const char* magic, struct lean_stamp* stamp, struct lean_time* started,
                     const char** body, size_t* body_size);

/* An index's body: a line per entry, 'n' (known to be no link, from d_type) or 'u', then the
 * name. lean_index_line appends one to `out` (room for 2 + the name's length), or answers 0
 * for a name a line cannot hold. lean_index_entries calls `each` for every entry where every
 * line is one a listing can give, else nothing (0); it turns the body's newlines into NULs. */
size_t lean_index_line(char* out, const char* name, int not_a_link);
int lean_index_entries(char* body, size_t size, void (*each)(void* context, const char* name, int not_a_link), void* context);

/* A parse's body: "<unknown keys> <arch count>\n<version>\n" and an arch per line.
 * lean_toml_body writes it into `out` (NULL: only measures) and answers its size;
 * lean_toml_from_body reads one back, its spans pointing into `body`: 1, or 0 where it is not
 * what lean_read_cuda_toml can give. */
size_t lean_toml_body(char* out, const struct lean_cuda_toml* toml);
int lean_toml_from_body(const char* body, size_t size, struct lean_cuda_toml* out);

/* The disk's list_versions and read_cuda_toml (lean_fs.h), with these caches. */
int lean_disk_list_versions(void* self, const char* path, void (*each)(void* context, const char* name, int not_a_link),
                            void* context);
int lean_disk_read_cuda_toml(void* self, const char* path, const char* cache_dir, struct lean_cuda_toml* out, char** text);

#ifdef __cplusplus
}
#endif

#endif
