#define _POSIX_C_SOURCE 200809L
#include "replay/record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char kMagic[] = "cudaenv-replay 1\n";

const char* const replay_variables[] = {"CUDAENV_VERSION",
                                        "CUDAENV_ROOT",
                                        "CUDAENV_SHARED_ROOT",
                                        "CUDAENV_SYSTEM_ROOT",
                                        "HOME",
                                        "PATH",
                                        "LD_LIBRARY_PATH",
                                        "PWD",
                                        "__CUDAENV_STATE",
                                        NULL};

/* ---- inputs ---- */

static size_t append(char* out, size_t used, size_t size, char tag, const char* text) {
  size_t n = strlen(text);
  if (!used || used + n + 2 > size) return 0;
  out[used] = tag;
  memcpy(out + used + 1, text, n);
  out[used + 1 + n] = '\0';
  return used + n + 2;
}

static const char* entry_of(char** environ, const char* name) {
  size_t n = strlen(name);
  for (char** entry = environ; *entry; ++entry) {
    if (strncmp(*entry, name, n) == 0 && (*entry)[n] == '=') return *entry;
  }
  return NULL;
}

size_t replay_inputs(char** environ, const char* program, const char* shim, const char* cwd, char* out, size_t size) {
  size_t used = append(out, 1, size, 'P', program);
  used = append(out, used, size, 'S', shim);
  used = append(out, used, size, 'D', cwd);
  for (const char* const* name = replay_variables; *name; ++name) {
    const char* entry = entry_of(environ, *name);
    used = append(out, used, size, entry ? 'E' : 'U', entry ? entry : *name);
  }
  if (!used) return 0;
  out[0] = '1'; /* the inputs' own version */
  return used;
}

uint64_t replay_hash(const char* data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ (unsigned char)data[i]) * 0x100000001b3ull;
  return hash;
}

/* ---- watches ---- */

int replay_observe(const char* path, enum replay_look look, struct replay_watch* watch) {
  struct stat st;
  memset(watch, 0, sizeof *watch);
  watch->path = path;
  int failed = look == REPLAY_LINK_IDENTITY ? lstat(path, &st) : stat(path, &st);
  if (failed) {
    watch->kind = look == REPLAY_LINK_IDENTITY ? 'n' : 'm';
    return errno == ENOENT || errno == ENOTDIR;
  }
  watch->kind = look == REPLAY_IDENTITY ? 'i' : look == REPLAY_LINK_IDENTITY ? 'l' : 'c';
  watch->dev = (unsigned long long)st.st_dev;
  watch->ino = (unsigned long long)st.st_ino;
  watch->mode = (unsigned long long)st.st_mode;
  watch->uid = (unsigned long long)st.st_uid;
  watch->gid = (unsigned long long)st.st_gid;
  watch->size = (unsigned long long)st.st_size;
  watch->mtime_s = (long long)st.st_mtim.tv_sec;
  watch->mtime_ns = (long long)st.st_mtim.tv_nsec;
  watch->ctime_s = (long long)st.st_ctim.tv_sec;
  watch->ctime_ns = (long long)st.st_ctim.tv_nsec;
  return 1;
}

static enum replay_look look_of(char kind) {
  return kind == 'n' || kind == 'l' ? REPLAY_LINK_IDENTITY : kind == 'c' ? REPLAY_CONTENT : REPLAY_IDENTITY;
}

int replay_watch_holds(const struct replay_watch* watch) {
  struct replay_watch now;
  if (!replay_observe(watch->path, look_of(watch->kind), &now)) return 0;
  if (watch->kind == 'm' || watch->kind == 'n' || now.kind == 'm' || now.kind == 'n') return now.kind == watch->kind;
  int same =
      now.dev == watch->dev && now.ino == watch->ino && now.mode == watch->mode && now.uid == watch->uid && now.gid == watch->gid;
  if (watch->kind != 'c') return same;
  return same && now.size == watch->size && now.mtime_s == watch->mtime_s && now.mtime_ns == watch->mtime_ns &&
         now.ctime_s == watch->ctime_s && now.ctime_ns == watch->ctime_ns;
}

int replay_watch_settled(const struct replay_watch* watch, long long started_s, long long started_ns) {
  if (watch->kind != 'c') return 1;
  long long margin_ns = watch->ctime_ns == 0 && watch->mtime_ns == 0 ? 2000000000ll : 20000000ll;
  long long ctime = watch->ctime_s * 1000000000ll + watch->ctime_ns;
  return ctime < started_s * 1000000000ll + started_ns - margin_ns;
}

/* ---- the file ---- */

struct writer {
  char* out;
  size_t used;
};

static void put(struct writer* w, const char* data, size_t size) {
  if (w->out) memcpy(w->out + w->used, data, size);
  w->used += size;
}

static void put_item(struct writer* w, char tag, const char* data, size_t size) {
  char head[32];
  int n = snprintf(head, sizeof head, "%c%zu:", tag, size);
  put(w, head, (size_t)n);
  put(w, data, size);
  put(w, "\n", 1);
}

static void put_watch(struct writer* w, const struct replay_watch* watch) {
  char fields[256];
  int n = snprintf(fields, sizeof fields, "%c %llu %llu %llu %llu %llu %llu %lld %lld %lld %lld ", watch->kind, watch->dev,
                   watch->ino, watch->mode, watch->uid, watch->gid, watch->size, watch->mtime_s, watch->mtime_ns, watch->ctime_s,
                   watch->ctime_ns);
  size_t path = strlen(watch->path);
  char head[32];
  int h = snprintf(head, sizeof head, "W%zu:", (size_t)n + path);
  put(w, head, (size_t)h);
  put(w, fields, (size_t)n);
  put(w, watch->path, path);
  put(w, "\n", 1);
}

size_t replay_format(const struct replay_record* record, char* out) {
  struct writer w = {out, 0};
  put(&w, kMagic, sizeof kMagic - 1);
  put_item(&w, 'I', record->inputs, record->inputs_size);
  for (size_t i = 0; i < record->watch_count; ++i) put_watch(&w, &record->watches[i]);
  put_item(&w, 'X', record->program, strlen(record->program));
  for (size_t i = 0; i < record->variable_count; ++i) put_item(&w, 'V', record->variables[i], strlen(record->variables[i]));
  char sum[17];
  snprintf(sum, sizeof sum, "%016llx", (unsigned long long)(out ? replay_hash(out, w.used) : 0));
  put_item(&w, 'Z', sum, 16);
  return w.used;
}

/* The item at `*at`: its tag, its bytes NUL-terminated in place of the newline after them. */
static int next_item(char* text, size_t size, size_t* at, char* tag, char** data, size_t* length) {
  size_t i = *at;
  if (i >= size) return 0;
  *tag = text[i++];
  size_t n = 0;
  int digits = 0;
  for (; i < size && text[i] >= '0' && text[i] <= '9' && digits < 7; ++i, ++digits) n = n * 10 + (size_t)(text[i] - '0');
  if (!digits || i >= size || text[i] != ':' || n > size - i - 1 || size - i - 1 - n < 1 || text[i + 1 + n] != '\n') return 0;
  *data = text + i + 1;
  *length = n;
  text[i + 1 + n] = '\0';
  *at = i + 2 + n;
  return 1;
}

/* A string item: no NUL inside. */
static int is_text(const char* data, size_t length) { return length > 0 && strlen(data) == length; }

static int parse_number(char** p, unsigned long long* value) {
  char* end;
  if (**p < '0' || **p > '9') return 0;
  errno = 0;
  *value = strtoull(*p, &end, 10);
  if (errno || *end != ' ') return 0;
  *p = end + 1;
  return 1;
}

static int parse_watch(char* data, size_t length, struct replay_watch* watch) {
  if (!is_text(data, length) || length < 2 || !strchr("mnilc", data[0]) || data[1] != ' ') return 0;
  watch->kind = data[0];
  char* p = data + 2;
  unsigned long long numbers[10];
  for (int i = 0; i < 10; ++i) {
    if (!parse_number(&p, &numbers[i])) return 0;
  }
  watch->dev = numbers[0], watch->ino = numbers[1], watch->mode = numbers[2], watch->uid = numbers[3];
  watch->gid = numbers[4], watch->size = numbers[5];
  watch->mtime_s = (long long)numbers[6], watch->mtime_ns = (long long)numbers[7];
  watch->ctime_s = (long long)numbers[8], watch->ctime_ns = (long long)numbers[9];
  watch->path = p;
  return *p == '/';
}

enum { SUM_ITEM = 21 }; /* "Z16:", 16 hex digits, "\n" */

int replay_parse(char* text, size_t size, struct replay_record* record) {
  memset(record, 0, sizeof *record);
  size_t magic = sizeof kMagic - 1;
  if (size < magic + SUM_ITEM || memcmp(text, kMagic, magic) != 0) return 0;
  /* The checksum first, over the bytes as written: parsing puts NULs after the items. */
  size_t end = size - SUM_ITEM;
  char sum[17];
  snprintf(sum, sizeof sum, "%016llx", (unsigned long long)replay_hash(text, end));
  if (memcmp(text + end, "Z16:", 4) != 0 || memcmp(text + end + 4, sum, 16) != 0 || text[size - 1] != '\n') return 0;
  size_t at = magic;
  char tag;
  char* data;
  size_t length;
  if (!next_item(text, end, &at, &tag, &data, &length) || tag != 'I' || !length) return 0;
  record->inputs = data;
  record->inputs_size = length;
  while (at < end) {
    if (!next_item(text, end, &at, &tag, &data, &length)) return 0;
    if (tag == 'W') {
      if (record->program || record->watch_count == REPLAY_MAX_WATCHES ||
          !parse_watch(data, length, &record->watches[record->watch_count++]))
        return 0;
    } else if (tag == 'X') {
      if (record->program || !is_text(data, length) || data[0] != '/') return 0;
      record->program = data;
    } else if (tag == 'V') {
      if (!record->program || record->variable_count == REPLAY_MAX_VARIABLES || !is_text(data, length) || data[0] == '=' ||
          !strchr(data, '='))
        return 0;
      record->variables[record->variable_count++] = data;
    } else {
      return 0;
    }
  }
  return record->program != NULL;
}

/* ---- the run ---- */

static int same_name(const char* a, const char* b) {
  while (*a == *b && *a != '=') ++a, ++b;
  return *a == '=' && *b == '=';
}

char** replay_environment(const struct replay_record* record, char** environ) {
  size_t count = 0;
  while (environ[count]) ++count;
  char** envp = malloc((count + record->variable_count + 1) * sizeof *envp);
  if (!envp) return NULL;
  int used[REPLAY_MAX_VARIABLES] = {0};
  size_t n = 0;
  for (char** entry = environ; *entry; ++entry) {
    envp[n] = *entry;
    for (size_t i = 0; i < record->variable_count; ++i) {
      if (same_name(*entry, record->variables[i])) envp[n] = (char*)record->variables[i], used[i] = 1;
    }
    ++n;
  }
  for (size_t i = 0; i < record->variable_count; ++i) {
    if (!used[i]) envp[n++] = (char*)record->variables[i];
  }
  envp[n] = NULL;
  return envp;
}

void replay_run(const struct replay_record* record, char** argv, char** environ) {
  char** envp = replay_environment(record, environ);
  if (!envp) return;
  char* given = argv[0];
  argv[0] = (char*)record->program;
  execve(record->program, argv, envp);
  int error = errno;
  argv[0] = given;
  free(envp);
  errno = error;
}
