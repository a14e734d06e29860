#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* d_type and DT_DIR */
#include "lean/lean_os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lean/lean_cache.h"

static enum lean_kind disk_kind(void* self, const char* path) {
  (void)self;
  struct stat st;
  if (stat(path, &st) != 0) return LEAN_MISSING;
  if (S_ISREG(st.st_mode)) return LEAN_FILE;
  if (S_ISDIR(st.st_mode)) return LEAN_DIRECTORY;
  return LEAN_OTHER;
}

static int disk_is_executable(void* self, const char* path) {
  return disk_kind(self, path) == LEAN_FILE && access(path, X_OK) == 0;
}

static char* disk_read_file(void* self, const char* path, size_t limit, size_t* size) {
  (void)self;
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > limit) return NULL;
  /* O_NONBLOCK: a FIFO swapped in after stat cannot make open wait; fstat then refuses it. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return NULL;
  char* data = NULL;
  size_t capacity = (size_t)st.st_size + 1, used = 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size < capacity) data = malloc(capacity);
  while (data) {
    ssize_t n = read(fd, data + used, capacity - used);
    if (n == 0) break;
    used += (size_t)(n > 0 ? n : 0);
    /* A read error, or more than stat said (a file under /proc): the full reader decides. */
    if (n < 0 || used == capacity) {
      free(data);
      data = NULL;
    }
  }
  close(fd);
  if (data) *size = used;
  return data;
}

static int disk_list_dir(void* self, const char* path, void (*each)(void*, const char*, int), void* context) {
  (void)self;
  DIR* dir = opendir(path);
  if (!dir) return -1;
  for (struct dirent* entry; (entry = readdir(dir));) {
    const char* name = entry->d_name;
    int not_a_link = entry->d_type == DT_DIR || entry->d_type == DT_REG;
    if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) each(context, name, not_a_link);
  }
  closedir(dir);
  return 0;
}

static long disk_read_link(void* self, const char* path, char* buffer, size_t size) {
  (void)self;
  ssize_t n = readlink(path, buffer, size);
  if (n < 0 || (size_t)n >= size) return -1;
  buffer[n] = '\0';
  return (long)n;
}

const struct lean_fs lean_disk = {NULL,          disk_kind,      disk_is_executable,      disk_read_file,
                                  disk_list_dir, disk_read_link, lean_disk_list_versions, lean_disk_read_cuda_toml};

long lean_self_exe(char* buffer, size_t size) { return disk_read_link(NULL, "/proc/self/exe", buffer, size); }

int lean_same_inode(const char* a, const char* b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int same_bytes(const char* a_path, const char* b_path) {
  int a = open(a_path, O_RDONLY | O_CLOEXEC), b = open(b_path, O_RDONLY | O_CLOEXEC);
  int same = a >= 0 && b >= 0;
  static char a_block[1 << 16], b_block[1 << 16];
  while (same) {
    ssize_t n = read(a, a_block, sizeof a_block);
    same = n >= 0 && read(b, b_block, sizeof b_block) == n && memcmp(a_block, b_block, (size_t)n) == 0;
    if (n <= 0) break;
  }
  if (a >= 0) close(a);
  if (b >= 0) close(b);
  return same;
}

int lean_is_same_program(const char* candidate, const char* self) {
  struct stat a, b;
  if (stat(candidate, &a) != 0 || stat(self, &b) != 0) return 0;
  if (a.st_dev == b.st_dev && a.st_ino == b.st_ino) return 1;
  return a.st_size == b.st_size && same_bytes(candidate, self);
}

int lean_logical_working_dir(const char* pwd, char* buffer, size_t size) {
  if (!getcwd(buffer, size)) return -1;
  if (pwd && pwd[0] == '/' && strlen(pwd) < size && lean_same_inode(pwd, buffer)) memmove(buffer, pwd, strlen(pwd) + 1);
  return 0;
}

static int same_mtime(const struct timespec* a, const struct timespec* b) {
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* create_directories(), errors ignored: opening the stamp reports them. */
static void make_folders(char* path) {
  for (char* slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    mkdir(path, 0777);
    *slash = '/';
  }
  mkdir(path, 0777);
}

static int make_stamp(char* stamp, const struct timespec* mtime) {
  struct stat existing;
  if (stat(stamp, &existing) == 0 && same_mtime(&existing.st_mtim, mtime)) return 1;
  char* name = strrchr(stamp, '/');
  if (name && name > stamp) {
    *name = '\0';
    make_folders(stamp);
    *name = '/';
  }
  /* An empty file whose mtime is the content: nothing to write atomically, but a link
   * planted in its place must not get its target's mtime changed. */
  int fd = open(stamp, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return 0;
  const struct timespec times[2] = {*mtime, *mtime};
  int stamped = futimens(fd, times) == 0;
  close(fd);
  return stamped;
}

enum lean_watch lean_watch_mtime(const char* stamps_dir, const char* path, char* stamp, size_t size) {
  struct stat info;
  if (stat(path, &info) != 0) return errno == ENOENT || errno == ENOTDIR ? LEAN_WATCH_MISSING : LEAN_WATCH_STALE;
  size_t n = strlen(stamps_dir);
  /* `stamps_dir` / name, as std::filesystem joins them */
  int written = snprintf(stamp, size, "%s%s%lld.%ld", stamps_dir, n && stamps_dir[n - 1] == '/' ? "" : "/",
                         (long long)info.st_mtim.tv_sec, (long)info.st_mtim.tv_nsec);
  if (written < 0 || (size_t)written >= size) return LEAN_WATCH_STALE;
  return make_stamp(stamp, &info.st_mtim) ? LEAN_WATCH_STAMPED : LEAN_WATCH_STALE;
}
