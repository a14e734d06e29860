#include "lean/lean_toml.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_bare_key_char(char c) { return is_alnum(c) || c == '_' || c == '-'; }
static int is_space(char c) { return c == ' ' || c == '\t'; }
/* Tab is the one control character TOML allows in strings and comments; bytes past ASCII are
 * left to the full reader, which checks their UTF-8. */
static int is_plain(char c) { return (c >= 0x20 && c < 0x7f) || c == '\t'; }

static int span_is(struct lean_span span, const char* word) {
  size_t n = strlen(word);
  return span.size == n && memcmp(span.text, word, n) == 0;
}

int lean_is_version_request(const char* text, size_t size) {
  if (size == 0 || !(is_alnum(text[0]) || text[0] == '_')) return 0;
  for (size_t i = 0; i < size; ++i) {
    char c = text[i];
    if (!(is_alnum(c) || c == '.' || c == '_' || c == '+' || c == '-')) return 0;
    if (c == '.' && i + 1 < size && text[i + 1] == '.') return 0;
  }
  return 1;
}

int lean_is_compute_capability(const char* text, size_t size) {
  size_t pos = 0;
  while (pos < size && is_digit(text[pos])) ++pos;
  if (pos == 0 || pos >= size || text[pos] != '.') return 0;
  size_t minor = ++pos;
  while (pos < size && is_digit(text[pos])) ++pos;
  if (pos == minor) return 0;
  if (pos < size && text[pos] >= 'a' && text[pos] <= 'z') ++pos;
  return pos == size || (size - pos == 4 && memcmp(text + pos, "+PTX", 4) == 0);
}

static int is_variable_name(struct lean_span name) {
  if (name.size == 0 || is_digit(name.text[0])) return 0;
  for (size_t i = 0; i < name.size; ++i) {
    if (!is_alnum(name.text[i]) && name.text[i] != '_') return 0;
  }
  return 1;
}

/* The (table, key) pairs seen, as 64-bit hashes in an open-addressed set: TOML refuses a key
 * or table defined twice. Two names of one hash count as the same, which only makes the
 * reader unsure. */
struct key_set {
  uint64_t small[512];
  uint64_t* slots;
  size_t capacity, count;
};

static uint64_t hash_pair(struct lean_span table, struct lean_span key) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < table.size; ++i) h = (h ^ (unsigned char)table.text[i]) * 1099511628211ull;
  h = (h ^ 0xffu) * 1099511628211ull;
  for (size_t i = 0; i < key.size; ++i) h = (h ^ (unsigned char)key.text[i]) * 1099511628211ull;
  return h ? h : 1;
}

static int set_place(uint64_t* slots, size_t capacity, uint64_t h) {
  for (size_t i = (size_t)(h ^ (h >> 29)) & (capacity - 1);; i = (i + 1) & (capacity - 1)) {
    if (slots[i] == h) return 0;
    if (slots[i] == 0) {
      slots[i] = h;
      return 1;
    }
  }
}

/* 1 when new, 0 when seen before or out of memory. */
static int set_insert(struct key_set* set, uint64_t h) {
  if (2 * (set->count + 1) > set->capacity) {
    size_t capacity = set->capacity * 4;
    uint64_t* slots = calloc(capacity, sizeof *slots);
    if (!slots) return 0;
    for (size_t i = 0; i < set->capacity; ++i) {
      if (set->slots[i]) set_place(slots, capacity, set->slots[i]);
    }
    if (set->slots != set->small) free(set->slots);
    set->slots = slots;
    set->capacity = capacity;
  }
  if (!set_place(set->slots, set->capacity, h)) return 0;
  ++set->count;
  return 1;
}

enum table { ROOT, CUDA, TORCH, ENV, OTHER };
enum value_kind { STRING, ARRAY };

struct value {
  enum value_kind kind;
  struct lean_span string;
  struct lean_span items[LEAN_MAX_ARCH];
  size_t count;
};

struct reader {
  const char* p;
  const char* eol;
  struct key_set keys;
  enum table table;
  struct lean_span table_name;
  struct lean_cuda_toml* out;
};

static void skip_spaces(struct reader* r) {
  while (r->p < r->eol && is_space(*r->p)) ++r->p;
}

static int read_comment(struct reader* r) {
  for (; r->p < r->eol; ++r->p) {
    if (!is_plain(*r->p)) return 0;
  }
  return 1;
}

/* What may end a line: spaces, then a comment after at least one space. */
static int read_line_end(struct reader* r) {
  const char* start = r->p;
  skip_spaces(r);
  if (r->p == r->eol) return 1;
  return *r->p == '#' && r->p > start && read_comment(r);
}

static struct lean_span read_bare_key(struct reader* r) {
  struct lean_span key = {r->p, 0};
  while (r->p < r->eol && is_bare_key_char(*r->p)) ++r->p;
  key.size = (size_t)(r->p - key.text);
  return key;
}

/* A one-line basic ("...", no escapes) or literal ('...') string. */
static int read_string(struct reader* r, struct lean_span* out) {
  char quote = *r->p;
  if (quote != '"' && quote != '\'') return 0;
  if (r->eol - r->p >= 3 && r->p[1] == quote && r->p[2] == quote) return 0; /* multi-line */
  const char* begin = ++r->p;
  for (; r->p < r->eol && *r->p != quote; ++r->p) {
    if (!is_plain(*r->p) || (quote == '"' && *r->p == '\\')) return 0;
  }
  if (r->p == r->eol) return 0;
  out->text = begin;
  out->size = (size_t)(r->p - begin);
  ++r->p;
  return 1;
}

/* A string, or a one-line array of strings without a trailing comma. */
static int read_value(struct reader* r, struct value* v) {
  if (r->p == r->eol) return 0;
  if (*r->p != '[') {
    v->kind = STRING;
    return read_string(r, &v->string);
  }
  v->kind = ARRAY;
  v->count = 0;
  ++r->p;
  skip_spaces(r);
  if (r->p < r->eol && *r->p == ']') return ++r->p, 1;
  while (1) {
    if (v->count == LEAN_MAX_ARCH || r->p == r->eol || !read_string(r, &v->items[v->count++])) return 0;
    skip_spaces(r);
    if (r->p == r->eol) return 0;
    if (*r->p == ']') return ++r->p, 1;
    if (*r->p != ',') return 0;
    ++r->p;
    skip_spaces(r);
  }
}

static int each_compute_capability(const struct value* v) {
  for (size_t i = 0; i < v->count; ++i) {
    if (!lean_is_compute_capability(v->items[i].text, v->items[i].size)) return 0;
  }
  return 1;
}

/* Whether the full reader would take `key = v` in the current table without an error. */
static int accept_setting(struct reader* r, struct lean_span key, const struct value* v) {
  switch (r->table) {
    case ROOT: ++r->out->unknown_keys; return !span_is(key, "cuda") && !span_is(key, "torch") && !span_is(key, "env");
    case CUDA:
      if (span_is(key, "version")) {
        if (v->kind != STRING || !lean_is_version_request(v->string.text, v->string.size)) return 0;
        r->out->version = v->string;
      } else if (span_is(key, "profile")) {
        return v->kind == STRING && (span_is(v->string, "minimal") || span_is(v->string, "torch") || span_is(v->string, "full"));
      } else if (span_is(key, "components")) {
        return v->kind == ARRAY;
      } else if (span_is(key, "arch")) {
        if (v->kind != ARRAY || !each_compute_capability(v)) return 0;
        memcpy(r->out->arch, v->items, v->count * sizeof v->items[0]);
        r->out->arch_count = v->count;
      } else if (span_is(key, "source")) {
        return v->kind == STRING && (span_is(v->string, "redist") || span_is(v->string, "pypi"));
      } else if (span_is(key, "libraries") || span_is(key, "lock")) {
        return 0; /* their values the full reader checks */
      } else {
        ++r->out->unknown_keys;
      }
      return 1;
    case TORCH:
      if (!span_is(key, "version")) ++r->out->unknown_keys;
      return !span_is(key, "version") || v->kind == STRING;
    case ENV: return is_variable_name(key) && v->kind == STRING;
    case OTHER: return 1;
  }
  return 0;
}

static int read_header(struct reader* r) {
  ++r->p;
  struct lean_span name = read_bare_key(r);
  if (name.size == 0 || r->p == r->eol || *r->p != ']') return 0;
  ++r->p;
  struct lean_span root = {"", 0};
  if (!set_insert(&r->keys, hash_pair(root, name))) return 0;
  r->table = span_is(name, "cuda") ? CUDA : span_is(name, "torch") ? TORCH : span_is(name, "env") ? ENV : OTHER;
  if (r->table == OTHER) ++r->out->unknown_keys;
  r->table_name = name;
  return read_line_end(r);
}

static int read_setting(struct reader* r) {
  struct lean_span key = read_bare_key(r);
  skip_spaces(r);
  if (r->p == r->eol || *r->p != '=') return 0;
  ++r->p;
  skip_spaces(r);
  struct value v;
  if (!read_value(r, &v) || !read_line_end(r)) return 0;
  return set_insert(&r->keys, hash_pair(r->table_name, key)) && accept_setting(r, key, &v);
}

static int read_line(struct reader* r) {
  skip_spaces(r);
  if (r->p == r->eol) return 1;
  if (*r->p == '#') return read_comment(r);
  if (*r->p == '[') return r->eol - r->p > 1 && r->p[1] != '[' && read_header(r);
  if (is_bare_key_char(*r->p)) return read_setting(r);
  return 0;
}

int lean_read_cuda_toml(const char* text, size_t size, struct lean_cuda_toml* out) {
  memset(out, 0, sizeof *out);
  struct reader r;
  memset(&r.keys.small, 0, sizeof r.keys.small);
  r.keys.slots = r.keys.small;
  r.keys.capacity = sizeof r.keys.small / sizeof r.keys.small[0];
  r.keys.count = 0;
  r.table = ROOT;
  r.table_name.text = "";
  r.table_name.size = 0;
  r.out = out;
  const char* end = text + size;
  int ok = 1;
  for (const char* line = text; ok && line < end;) {
    const char* newline = memchr(line, '\n', (size_t)(end - line));
    r.p = line;
    r.eol = newline ? newline : end;
    ok = read_line(&r);
    line = r.eol + 1;
  }
  if (r.keys.slots != r.keys.small) free(r.keys.slots);
  return ok;
}
