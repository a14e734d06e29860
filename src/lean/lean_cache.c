#define _POSIX_C_SOURCE 200809L
#include "lean/lean_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lean/lean_os.h"

static const char kIndexMagic[] = "cudaenv-versions-index-1";
static const char kTomlMagic[] = "cudaenv-cuda-toml-2"; /* 2: the body counts [env]'s entries */
#define CHECKSUM_SEED 0x6a09e667f3bcc909ull

enum { PATH_SIZE = 4096 };

static int same_time(struct lean_time a, struct lean_time b) { return a.s == b.s && a.ns == b.ns; }
static int earlier(struct lean_time a, struct lean_time b) { return a.s < b.s || (a.s == b.s && a.ns < b.ns); }

int lean_cache_is_fresh(const struct lean_stamp* recorded, struct lean_time started, const struct lean_stamp* now) {
  /* Every change to a file or folder sets its ctime to the kernel's clock, which no one can set
   * back; one after `started` sets it to `started` or later, so where the recorded ctime is
   * earlier the stamp would show it. */
  return recorded->dev == now->dev && recorded->ino == now->ino && recorded->size == now->size &&
         same_time(recorded->mtime, now->mtime) && same_time(recorded->ctime, now->ctime) && earlier(recorded->ctime, started);
}

/* Of the header's numbers and the body: a changed byte anywhere shows. */
static uint64_t checksum(const char* numbers, size_t numbers_size, const char* body, size_t body_size) {
  return lean_hash(lean_hash(CHECKSUM_SEED, numbers, numbers_size), body, body_size);
}

size_t lean_cache_header(char* out, const char* magic, const struct lean_stamp* stamp, struct lean_time started, const char* body,
                         size_t body_size) {
  if (stamp->mtime.s < 0 || stamp->ctime.s < 0 || started.s < 0) return 0;
  int n =
      snprintf(out, LEAN_CACHE_HEADER_MAX, "%s %llu %llu %llu %lld %ld %lld %ld %lld %ld %zu ", magic, stamp->dev, stamp->ino,
               stamp->size, stamp->mtime.s, stamp->mtime.ns, stamp->ctime.s, stamp->ctime.ns, started.s, started.ns, body_size);
  if (n <= 0 || n >= LEAN_CACHE_HEADER_MAX) return 0;
  int m = snprintf(out + n, (size_t)(LEAN_CACHE_HEADER_MAX - n), "%llu\n",
                   (unsigned long long)checksum(out, (size_t)n, body, body_size));
  return m > 0 && m < LEAN_CACHE_HEADER_MAX - n ? (size_t)(n + m) : 0;
}

/* A decimal number below 2^64 and the byte `after`: 1, with `p` past both. */
static int read_number(const char** p, const char* end, char after, unsigned long long* value) {
  int digits = 0;
  *value = 0;
  for (; *p < end && **p >= '0' && **p <= '9'; ++*p, ++digits) {
    unsigned digit = (unsigned)(**p - '0');
    if (*value > (~0ull - digit) / 10) return 0;
    *value = *value * 10 + digit;
  }
  if (digits == 0 || *p == end || **p != after) return 0;
  ++*p;
  return 1;
}

static int read_time(const char** p, const char* end, struct lean_time* out) {
  unsigned long long s, ns;
  if (!read_number(p, end, ' ', &s) || !read_number(p, end, ' ', &ns) || ns >= 1000000000ull) return 0;
  out->s = (long long)s;
  out->ns = (long)ns;
  return 1;
}

int lean_cache_parse(const char* text, size_t size, const char* magic, struct lean_stamp* stamp, struct lean_time* started,
                     const char** body, size_t* body_size) {
  const char* p = text;
  const char* end = text + size;
  size_t n = strlen(magic);
  unsigned long long length;
  if (size <= n || memcmp(p, magic, n) != 0 || p[n] != ' ') return 0;
  p += n + 1;
  if (!read_number(&p, end, ' ', &stamp->dev) || !read_number(&p, end, ' ', &stamp->ino) ||
      !read_number(&p, end, ' ', &stamp->size) || !read_time(&p, end, &stamp->mtime) || !read_time(&p, end, &stamp->ctime) ||
      !read_time(&p, end, started) || !read_number(&p, end, ' ', &length)) {
    return 0;
  }
  const char* numbers_end = p;
  unsigned long long sum;
  if (!read_number(&p, end, '\n', &sum) || length != (unsigned long long)(end - p) ||
      sum != checksum(text, (size_t)(numbers_end - text), p, (size_t)length)) {
    return 0;
  }
  *body = p;
  *body_size = (size_t)length;
  return 1;
}

size_t lean_index_line(char* out, const char* name, int not_a_link) {
  /* One pass, copying and looking for a newline: names are short, and a miss writes 1000. */
  char* p = out + 1;
  for (; *name; ++name) {
    if (*name == '\n') return 0;
    *p++ = *name;
  }
  if (p == out + 1) return 0;
  out[0] = not_a_link ? 'n' : 'u';
  *p++ = '\n';
  return (size_t)(p - out);
}

/* Calls `line` with each line of `body` (its start and length, the newline left out) until it
 * answers 0; 0 also where a byte is '/' or NUL or the last line has no newline. 16 bytes a step
 * on x86-64: an index of 1000 names is read at every call. */
/* Inlined where it is called, so that `line` is too. */
static inline __attribute__((always_inline)) int each_line(char* body, size_t size,
                                                           int (*line)(void* context, char* text, size_t n), void* context) {
  char* end = body + size;
  char* start = body;
  char* p = body;
#ifdef __SSE2__
  const __m128i newline = _mm_set1_epi8('\n'), slash = _mm_set1_epi8('/'), zero = _mm_setzero_si128();
  for (; end - p >= 16; p += 16) {
    __m128i x = _mm_loadu_si128((const __m128i*)(const void*)p);
    if (_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, slash), _mm_cmpeq_epi8(x, zero)))) return 0;
    for (unsigned mask = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, newline)); mask; mask &= mask - 1) {
      char* stop = p + __builtin_ctz(mask);
      if (!line(context, start, (size_t)(stop - start))) return 0;
      start = stop + 1;
    }
  }
#endif
  for (; p < end; ++p) {
    if (*p == '/' || *p == '\0') return 0;
    if (*p != '\n') continue;
    if (!line(context, start, (size_t)(p - start))) return 0;
    start = p + 1;
  }
  return start == end;
}

/* A kind and a name readdir can give but "." and ".." (each_line refuses '/' and NUL). */
static int is_entry_line(void* context, char* text, size_t n) {
  (void)context;
  return n >= 2 && (text[0] == 'n' || text[0] == 'u') && !(n == 2 && text[1] == '.') &&
         !(n == 3 && text[1] == '.' && text[2] == '.');
}

struct entry_calls {
  void (*each)(void* context, const char* name, int not_a_link);
  void* context;
};

static int call_entry(void* context, char* text, size_t n) {
  struct entry_calls* calls = context;
  text[n] = '\0';
  calls->each(calls->context, text + 1, text[0] == 'n');
  return 1;
}

int lean_index_entries(char* body, size_t size, void (*each)(void* context, const char* name, int not_a_link), void* context) {
  /* Checked whole before the first call, so that a bad line calls nothing. */
  struct entry_calls calls = {each, context};
  return each_line(body, size, is_entry_line, NULL) && each_line(body, size, call_entry, &calls);
}

size_t lean_toml_body(char* out, const struct lean_cuda_toml* toml) {
  char counts[72];
  int n = snprintf(counts, sizeof counts, "%zu %zu %zu\n", toml->unknown_keys, toml->arch_count, toml->env_count);
  size_t size = (size_t)n + toml->version.size + 1;
  for (size_t i = 0; i < toml->arch_count; ++i) size += toml->arch[i].size + 1;
  if (!out) return size;
  char* p = out;
  memcpy(p, counts, (size_t)n);
  p += n;
  if (toml->version.size) memcpy(p, toml->version.text, toml->version.size);
  p += toml->version.size;
  *p++ = '\n';
  for (size_t i = 0; i < toml->arch_count; ++i) {
    memcpy(p, toml->arch[i].text, toml->arch[i].size);
    p += toml->arch[i].size;
    *p++ = '\n';
  }
  return size;
}

/* The line from `*p` up to its newline, `p` then past it: 1, or 0 at the end. */
static int next_line(const char** p, const char* end, struct lean_span* line) {
  const char* newline = *p < end ? memchr(*p, '\n', (size_t)(end - *p)) : NULL;
  if (!newline) return 0;
  line->text = *p;
  line->size = (size_t)(newline - *p);
  *p = newline + 1;
  return 1;
}

int lean_toml_from_body(const char* body, size_t size, struct lean_cuda_toml* out) {
  memset(out, 0, sizeof *out);
  const char* p = body;
  const char* end = body + size;
  unsigned long long unknown, arch, env;
  if (!read_number(&p, end, ' ', &unknown) || !read_number(&p, end, ' ', &arch) || !read_number(&p, end, '\n', &env) ||
      arch > LEAN_MAX_ARCH) {
    return 0;
  }
  if (!next_line(&p, end, &out->version)) return 0;
  if (out->version.size && !lean_is_version_request(out->version.text, out->version.size)) return 0;
  if (!out->version.size) out->version.text = NULL;
  for (size_t i = 0; i < arch; ++i) {
    struct lean_span* item = &out->arch[i];
    if (!next_line(&p, end, item) || !lean_is_compute_capability(item->text, item->size)) return 0;
  }
  out->arch_count = (size_t)arch;
  out->unknown_keys = (size_t)unknown;
  out->env_count = (size_t)env;
  return p == end;
}

/* ---- the disk ---- */

static struct lean_time time_of(struct timespec t) { return (struct lean_time){(long long)t.tv_sec, t.tv_nsec}; }

static struct lean_stamp stamp_of(const struct stat* st) {
  struct lean_stamp stamp = {(unsigned long long)st->st_dev, (unsigned long long)st->st_ino, (unsigned long long)st->st_size,
                             time_of(st->st_mtim), time_of(st->st_ctim)};
  return stamp;
}

/* Whether a file system is a local one (the magic numbers of linux/magic.h, and
 * ZFS's): there stat(2) gives what the kernel holds, while a network one may answer from
 * attributes cached before another host's change that a listing would ask the server about.
 * Elsewhere (NFS, CIFS, FUSE, any other) the caches are not used. */
static int is_local(const struct statfs* fs) {
  switch ((unsigned long)fs->f_type & 0xffffffffu) {
    case 0xEF53:     /* ext2, ext3, ext4 */
    case 0x58465342: /* xfs */
    case 0x9123683E: /* btrfs */
    case 0x01021994: /* tmpfs */
    case 0x794C7630: /* overlayfs */
    case 0xF2F52010: /* f2fs */
    case 0x2FC12FC1: /* zfs */ return 1;
  }
  return 0;
}

/* The cache file at `path`, whole, and the device it is on: a buffer to free; NULL where it
 * is missing, a link, no regular file, over `limit` bytes, unreadable, changing or on a file
 * system the caches are not used on. */
static char* read_cache(const char* path, size_t limit, size_t* size, unsigned long long* dev) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return NULL;
  struct stat st;
  char* data = NULL;
  struct statfs fs;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= limit && fstatfs(fd, &fs) == 0 && is_local(&fs)) {
    data = malloc((size_t)st.st_size + 1);
  }
  if (data) {
    ssize_t n = read(fd, data, (size_t)st.st_size + 1);
    if (n != (ssize_t)st.st_size) {
      free(data);
      data = NULL;
    }
  }
  close(fd);
  if (data) *size = (size_t)st.st_size, *dev = (unsigned long long)st.st_dev;
  return data;
}

/* A cache being written: a temporary file beside it, and its ctime, when it was made. */
struct cache_writer {
  int fd;
  char temp[PATH_SIZE];
  struct lean_time started;
  unsigned long long dev;
};

/* 1 with the temporary file made beside `path` (its folder too, where missing), named as
 * util/atomic_file.h names them (.NAME.tmp-SUFFIX); 0 where the folder takes none (read-only),
 * is someone else's (root running another user's shim must not leave files there that user
 * cannot replace), or is on another file system than `source` (whose clock may differ, so no
 * cache of it would ever hold): the cache is then left alone. */
static int writer_begin(struct cache_writer* w, const char* path, unsigned long long source) {
  const char* slash = strrchr(path, '/');
  if (!slash || slash == path) return 0;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  int dir = (int)(slash - path);
  int n = snprintf(w->temp, sizeof w->temp, "%.*s/.%s.tmp-%lx%lx", dir, path, slash + 1, (long)getpid(), (long)now.tv_nsec);
  if (n <= 0 || (size_t)n >= sizeof w->temp) return 0;
  struct stat st;
  struct statfs fs;
  w->temp[dir] = '\0';
  int missing = stat(w->temp, &st) != 0;
  if (missing) {
    /* The folder's parent, the root, tells the file system it would be made on. */
    char* parent = strrchr(w->temp, '/');
    if (parent && parent > w->temp) *parent = '\0';
    if (stat(w->temp, &st) != 0 || statfs(w->temp, &fs) != 0) st.st_dev = (dev_t)~source;
    if (parent && parent > w->temp) *parent = '/';
  } else if (statfs(w->temp, &fs) != 0) {
    st.st_dev = (dev_t)~source;
  }
  int made = (unsigned long long)st.st_dev == source && is_local(&fs) && st.st_uid == geteuid() &&
             (!missing || mkdir(w->temp, 0755) == 0 || errno == EEXIST);
  w->temp[dir] = '/';
  if (!made) return 0;
  w->fd = open(w->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (w->fd < 0) return 0;
  if (fstat(w->fd, &st) != 0) {
    close(w->fd);
    unlink(w->temp);
    return 0;
  }
  w->started = time_of(st.st_ctim);
  w->dev = (unsigned long long)st.st_dev;
  return 1;
}

/* The cache of what had `stamp` when read after writer_begin, renamed into place; dropped
 * where `body` is NULL, where the stamp may hide a change (a change in the same tick as
 * `started`, or on another file system, whose clock may differ), or where writing fails. */
static void writer_end(struct cache_writer* w, const char* path, const char* magic, const struct lean_stamp* stamp,
                       const char* body, size_t size) {
  char header[LEAN_CACHE_HEADER_MAX];
  size_t header_size = 0;
  int keep = body && stamp->dev == w->dev && earlier(stamp->ctime, w->started) &&
             (header_size = lean_cache_header(header, magic, stamp, w->started, body, size)) != 0;
  keep = keep && write(w->fd, header, header_size) == (ssize_t)header_size && write(w->fd, body, size) == (ssize_t)size;
  keep = close(w->fd) == 0 && keep;
  if (!keep || rename(w->temp, path) != 0) unlink(w->temp);
}

/* <root>/cache/versions.index for <root>/versions */
static int index_path(const char* versions, char out[PATH_SIZE]) {
  const char* slash = strrchr(versions, '/');
  static const char kName[] = "/cache/versions.index";
  if (!slash || (size_t)(slash - versions) + sizeof kName > PATH_SIZE) return 0;
  memcpy(out, versions, (size_t)(slash - versions));
  memcpy(out + (slash - versions), kName, sizeof kName);
  return 1;
}

/* A listing passed on to its caller and written down as an index's body. */
struct recorder {
  void (*each)(void*, const char*, int);
  void* context;
  char* body;
  size_t size, capacity;
  int failed; /* out of memory, or a name no line holds */
};

static void record(void* context, const char* name, int not_a_link) {
  struct recorder* r = context;
  r->each(r->context, name, not_a_link);
  size_t n = strlen(name) + 2;
  if (!r->failed && r->size + n > r->capacity) {
    size_t capacity = r->capacity ? 2 * r->capacity : 16384;
    while (capacity < r->size + n) capacity *= 2;
    char* body = capacity <= LEAN_SMALL_FILE_LIMIT ? realloc(r->body, capacity) : NULL;
    if (body) r->body = body, r->capacity = capacity;
    r->failed |= !body;
  }
  if (!r->failed) {
    size_t written = lean_index_line(r->body + r->size, name, not_a_link);
    r->failed |= !written;
    r->size += written;
  }
}

/* The text of the cache file `cache` (to free), with `body` pointing into it, when it was made
 * from what now has the stamp `now` and is fresh (lean_cache_is_fresh); NULL otherwise. */
static char* read_fresh(const char* cache, const char* magic, const struct lean_stamp* now, const char** body,
                        size_t* body_size) {
  size_t size = 0;
  unsigned long long dev = 0;
  struct lean_stamp recorded;
  struct lean_time started;
  char* text = read_cache(cache, LEAN_SMALL_FILE_LIMIT + LEAN_CACHE_HEADER_MAX, &size, &dev);
  if (text && dev == now->dev && lean_cache_parse(text, size, magic, &recorded, &started, body, body_size) &&
      lean_cache_is_fresh(&recorded, started, now)) {
    return text;
  }
  free(text);
  return NULL;
}

int lean_disk_list_versions(void* self, const char* path, void (*each)(void*, const char*, int), void* context) {
  char index[PATH_SIZE];
  struct stat st;
  if (!index_path(path, index) || stat(path, &st) != 0) return lean_disk.list_dir(self, path, each, context);
  struct lean_stamp now = stamp_of(&st);
  const char* body = NULL;
  size_t body_size = 0;
  char* text = read_fresh(index, kIndexMagic, &now, &body, &body_size);
  int hit = text && lean_index_entries((char*)body, body_size, each, context);
  free(text);
  if (hit) return 0;

  struct cache_writer writer;
  if (!writer_begin(&writer, index, now.dev)) return lean_disk.list_dir(self, path, each, context);
  if (stat(path, &st) != 0) {
    writer_end(&writer, index, kIndexMagic, &now, NULL, 0);
    return lean_disk.list_dir(self, path, each, context);
  }
  now = stamp_of(&st);
  struct recorder recorder = {each, context, NULL, 0, 0, 0};
  int listed = lean_disk.list_dir(self, path, record, &recorder);
  writer_end(&writer, index, kIndexMagic, &now, listed == 0 && !recorder.failed ? recorder.body : NULL, recorder.size);
  free(recorder.body);
  return listed;
}

/* What the resolver does without a cache. */
static int read_and_parse(const char* path, struct lean_cuda_toml* out, char** text) {
  size_t size = 0;
  *text = lean_disk.read_file(NULL, path, LEAN_SMALL_FILE_LIMIT, &size);
  return *text && lean_read_cuda_toml(*text, size, out);
}

int lean_disk_read_cuda_toml(void* self, const char* path, const char* cache_dir, struct lean_cuda_toml* out, char** text) {
  (void)self;
  struct stat st;
  char cache[PATH_SIZE];
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < LEAN_TOML_CACHE_MIN ||
      (size_t)st.st_size > LEAN_SMALL_FILE_LIMIT) {
    return read_and_parse(path, out, text);
  }
  int n = snprintf(cache, sizeof cache, "%s/cuda-toml.%016llx", cache_dir,
                   (unsigned long long)lean_hash(CHECKSUM_SEED, path, strlen(path)));
  if (n <= 0 || (size_t)n >= sizeof cache) return read_and_parse(path, out, text);
  struct lean_stamp now = stamp_of(&st);
  const char* body = NULL;
  size_t body_size = 0;
  char* cached = read_fresh(cache, kTomlMagic, &now, &body, &body_size);
  if (cached && lean_toml_from_body(body, body_size, out)) {
    *text = cached;
    return 1;
  }
  free(cached);

  struct cache_writer writer;
  if (!writer_begin(&writer, cache, now.dev)) return read_and_parse(path, out, text);
  /* The stamp after the start and before the read: a change between them shows in one of the two. */
  int stamped = stat(path, &st) == 0;
  int ok = read_and_parse(path, out, text);
  now = stamp_of(&st);
  size_t body_length = ok && stamped ? lean_toml_body(NULL, out) : 0;
  char* fresh_body = body_length ? malloc(body_length) : NULL;
  if (fresh_body) lean_toml_body(fresh_body, out);
  writer_end(&writer, cache, kTomlMagic, &now, fresh_body, body_length);
  free(fresh_body);
  return ok;
}
