#ifndef CUDAENV_LEAN_OS_H
#define CUDAENV_LEAN_OS_H
/* The few system facts both the shim and cudaenv need, in one place (C, so the static shim
 * can use them without a C++ runtime). */

#include <stddef.h>

#include "lean/lean_fs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The disk, through system calls. */
extern const struct lean_fs lean_disk;

/* The running program's file (/proc/self/exe) into `buffer`, NUL-terminated: its length, or -1. */
long lean_self_exe(char* buffer, size_t size);

/* Whether two paths name one file (the same device and inode, following links). */
int lean_same_inode(const char* a, const char* b);

/* Whether `candidate` is the program `self` under another name: a hard link or symlink to it,
 * or a copy (the same size and bytes; only a file of exactly its size is read). */
int lean_is_same_program(const char* candidate, const char* self);

/* The working directory as the shell shows it: $PWD when it is absolute and the same folder
 * as getcwd(3) (a path through a symlink), else getcwd's. -1 (errno set) when there is none. */
int lean_logical_working_dir(const char* pwd, char* buffer, size_t size);

/* watch_mtime() (shell/stamps.h): an empty file `stamps_dir`/<sec>.<nsec> carrying `path`'s
 * mtime, made where missing (its folders too), its path into `stamp`; or `path` is missing; or
 * stale: no stamp could be made for an existing path. */
enum lean_watch { LEAN_WATCH_STAMPED, LEAN_WATCH_MISSING, LEAN_WATCH_STALE };
enum lean_watch lean_watch_mtime(const char* stamps_dir, const char* path, char* stamp, size_t size);

#ifdef __cplusplus
}
#endif

#endif
