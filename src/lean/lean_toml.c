#include "lean/lean_toml.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
  /* parse_version(): numbers of 1 to 9 digits */
  size_t pos = 0;
  while (pos < size && is_digit(text[pos])) ++pos;
  if (pos == 0 || pos > 9 || pos >= size || text[pos] != '.') return 0;
  size_t minor = ++pos;
  while (pos < size && is_digit(text[pos])) ++pos;
  if (pos == minor || pos - minor > 9) return 0;
  if (pos < size && text[pos] >= 'a' && text[pos] <= 'z') ++pos;
  return pos == size || (size - pos == 4 && memcmp(text + pos, "+PTX", 4) == 0);
}

/* The (table, key) pairs seen, as 64-bit hashes in an open-addressed set: TOML refuses a key
 * or table defined twice. Two names of one hash count as the same, which only makes the
 * reader unsure. */
struct key_set {
  uint64_t small[512];
  uint64_t* slots;
  size_t capacity, count;
};

static uint64_t mix(uint64_t h, uint64_t word) {
  h = (h ^ word) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 31);
}

/* Eight bytes a step, the last eight overlapping the step before; the length goes in too. */
uint64_t lean_hash(uint64_t h, const char* text, size_t size) {
  struct lean_span span = {text, size};
  const char* p = span.text;
  size_t n = span.size;
  for (; n > 8; p += 8, n -= 8) {
    uint64_t word;
    memcpy(&word, p, sizeof word);
    h = mix(h, word);
  }
  uint64_t last = 0;
  if (span.size >= 8) {
    memcpy(&last, span.text + span.size - 8, sizeof last);
  } else {
    for (size_t i = 0; i < n; ++i) last |= (uint64_t)(unsigned char)p[i] << (8 * i);
  }
  h = mix(h, last ^ (uint64_t)span.size << 56);
  /* MurmurHash3's finaliser: every bit of the last word reaches the low bits the set indexes by. */
  h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
  h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h ? h : 1;
}

static uint64_t hash_span(uint64_t h, struct lean_span span) { return lean_hash(h, span.text, span.size); }
static uint64_t hash_table(struct lean_span name) { return hash_span(0x243f6a8885a308d3ull, name); }

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

/* The scans below cover most of a large file ([env] tables, comments, long strings), so on
 * x86-64 they test 16 bytes a step (SSE2 is part of the architecture); the byte loops after
 * them finish the last bytes, and do it all elsewhere. */

/* The first byte from `p` that is `a`, `b`, or not plain (so a newline too). */
static const char* skip_plain(const char* p, const char* end, char a, char b) {
#ifdef __SSE2__
  const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), del = _mm_set1_epi8(0x7f);
  const __m128i stop_a = _mm_set1_epi8(a), stop_b = _mm_set1_epi8(b);
  for (; end - p >= 16; p += 16) {
    __m128i x = _mm_loadu_si128((const __m128i*)(const void*)p);
    /* Signed bytes: those past ASCII are negative, so below ' ' as the control characters are. */
    __m128i stop = _mm_andnot_si128(_mm_cmpeq_epi8(x, tab), _mm_cmplt_epi8(x, space));
    stop = _mm_or_si128(stop, _mm_cmpeq_epi8(x, del));
    stop = _mm_or_si128(stop, _mm_or_si128(_mm_cmpeq_epi8(x, stop_a), _mm_cmpeq_epi8(x, stop_b)));
    unsigned mask = (unsigned)_mm_movemask_epi8(stop);
    if (mask) return p + __builtin_ctz(mask);
  }
#endif
  while (p < end && is_plain(*p) && *p != a && *p != b) ++p;
  return p;
}

#ifdef __SSE2__
/* Each byte of `x` within [low, low + span]. */
static __m128i in_range(__m128i x, char low, char span) {
  __m128i limit = _mm_set1_epi8(span);
  return _mm_cmpeq_epi8(_mm_max_epu8(_mm_sub_epi8(x, _mm_set1_epi8(low)), limit), limit);
}
#endif

/* The first byte from `p` that cannot be in a bare key; `dash` set when a '-' came before it. */
static const char* skip_bare_key(const char* p, const char* end, int* dash) {
#ifdef __SSE2__
  for (; end - p >= 16; p += 16) {
    __m128i x = _mm_loadu_si128((const __m128i*)(const void*)p);
    __m128i minus = _mm_cmpeq_epi8(x, _mm_set1_epi8('-'));
    /* x | 0x20 is a lowercase letter exactly where x is a letter. */
    __m128i key = _mm_or_si128(in_range(_mm_or_si128(x, _mm_set1_epi8(0x20)), 'a', 'z' - 'a'), in_range(x, '0', 9));
    key = _mm_or_si128(key, _mm_or_si128(minus, _mm_cmpeq_epi8(x, _mm_set1_epi8('_'))));
    unsigned stop = ~(unsigned)_mm_movemask_epi8(key) & 0xffffu;
    unsigned dashes = (unsigned)_mm_movemask_epi8(minus);
    if (stop) dashes &= (1u << __builtin_ctz(stop)) - 1;
    *dash |= dashes != 0;
    if (stop) return p + __builtin_ctz(stop);
  }
#endif
  for (; p < end && is_bare_key_char(*p); ++p) *dash |= *p == '-';
  return p;
}

#ifdef __SSE2__
/* -1 in each byte of the 16 at `p` that is a newline. */
static __m128i newlines(const char* p, __m128i newline) {
  return _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(const void*)p), newline);
}
#endif

/* How many '\n' `text` holds: at most that many keys, bar the last line. */
static size_t count_lines(const char* p, const char* end) {
  size_t lines = 0;
#ifdef __SSE2__
  const __m128i newline = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
  while (end - p >= 16) {
    /* Byte counters, 64 bytes a step, summed before any can pass 255. */
    __m128i counts = zero;
    for (int i = 0; i < 63 && end - p >= 64; ++i, p += 64) {
      __m128i pair = _mm_add_epi8(newlines(p, newline), newlines(p + 16, newline));
      counts = _mm_sub_epi8(counts, _mm_add_epi8(pair, _mm_add_epi8(newlines(p + 32, newline), newlines(p + 48, newline))));
    }
    if (end - p < 64) {
      for (; end - p >= 16; p += 16) counts = _mm_sub_epi8(counts, newlines(p, newline));
    }
    __m128i sums = _mm_sad_epu8(counts, zero);
    lines += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
  }
#endif
  for (; p < end; ++p) lines += *p == '\n';
  return lines;
}

/* Room for a key on every line at the start: each growth copies every slot into new pages
 * that fault in again. An array from calloc stays untouched where no key lands. */
static void key_set_init(struct key_set* set, const char* text, size_t size) {
  set->slots = set->small;
  set->capacity = sizeof set->small / sizeof set->small[0];
  set->count = 0;
  size_t capacity = set->capacity;
  if (size / 8 > capacity) {
    size_t keys = count_lines(text, text + size) + 1;
    while (capacity < 2 * keys) capacity *= 2;
  }
  if (capacity > set->capacity) set->slots = calloc(capacity, sizeof *set->slots);
  if (set->slots && set->slots != set->small) {
    set->capacity = capacity;
  } else {
    set->slots = set->small;
    memset(set->small, 0, sizeof set->small);
  }
}

enum table { ROOT, CUDA, TORCH, ENV, OTHER };
enum value_kind { STRING, LONG_STRING, ARRAY };

struct value {
  enum value_kind kind;
  struct lean_span string;
  struct lean_span items[LEAN_MAX_ARCH];
  size_t count;
};

/* The file is read as one buffer: a line ends at '\n' or at the end. */
struct reader {
  const char* p;
  const char* end;
  struct key_set keys;
  enum table table;
  uint64_t table_hash; /* of the table's name: each key's hash starts from it */
  struct lean_cuda_toml* out;
};

static int at_line_end(const struct reader* r) { return r->p == r->end || *r->p == '\n'; }

static void skip_spaces(struct reader* r) {
  while (r->p < r->end && is_space(*r->p)) ++r->p;
}

static int read_comment(struct reader* r) {
  r->p = skip_plain(r->p, r->end, '\n', '\n');
  return at_line_end(r);
}

/* What may end a line: spaces, then a comment after at least one space. */
static int read_line_end(struct reader* r) {
  const char* start = r->p;
  skip_spaces(r);
  if (at_line_end(r)) return 1;
  return *r->p == '#' && r->p > start && read_comment(r);
}

static struct lean_span read_bare_key(struct reader* r, int* dash) {
  struct lean_span key = {r->p, 0};
  r->p = skip_bare_key(r->p, r->end, dash);
  key.size = (size_t)(r->p - key.text);
  return key;
}

static int starts_triple(const struct reader* r, char quote) {
  return r->end - r->p >= 3 && r->p[0] == quote && r->p[1] == quote && r->p[2] == quote;
}

/* A one-line basic ("...", no escapes) or literal ('...') string. */
static int read_string(struct reader* r, struct lean_span* out) {
  char quote = *r->p;
  if (quote != '"' && quote != '\'') return 0;
  if (starts_triple(r, quote)) return 0;
  const char* begin = ++r->p;
  r->p = skip_plain(r->p, r->end, quote, quote == '"' ? '\\' : quote);
  if (r->p == r->end || *r->p != quote) return 0;
  out->text = begin;
  out->size = (size_t)(r->p - begin);
  ++r->p;
  return 1;
}

/* A multi-line string (three double quotes without escapes, or three single quotes) over
 * lines of plain text: a table header in it is text. It ends at the first three quotes in a
 * row; four or five (TOML lets one or two belong to the string) the full reader reads. */
static int read_long_string(struct reader* r) {
  char quote = *r->p;
  r->p += 3;
  while (1) {
    r->p = skip_plain(r->p, r->end, quote, quote == '"' ? '\\' : quote);
    if (r->p == r->end) return 0;
    if (*r->p == '\n') {
      ++r->p;
      continue;
    }
    if (*r->p != quote) return 0;
    if (!starts_triple(r, quote)) {
      while (r->p < r->end && *r->p == quote) ++r->p; /* one or two: part of the string */
      continue;
    }
    r->p += 3;
    return r->p == r->end || *r->p != quote;
  }
}

/* A string, or a one-line array of one-line strings without a trailing comma. */
static int read_value(struct reader* r, struct value* v) {
  if (at_line_end(r)) return 0;
  if (*r->p != '[') {
    if (starts_triple(r, '"') || starts_triple(r, '\'')) {
      v->kind = LONG_STRING;
      return read_long_string(r);
    }
    v->kind = STRING;
    return read_string(r, &v->string);
  }
  v->kind = ARRAY;
  v->count = 0;
  ++r->p;
  skip_spaces(r);
  if (r->p < r->end && *r->p == ']') return ++r->p, 1;
  while (1) {
    if (v->count == LEAN_MAX_ARCH || at_line_end(r) || !read_string(r, &v->items[v->count++])) return 0;
    skip_spaces(r);
    if (at_line_end(r)) return 0;
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

/* Whether the full reader would take `key = v` in the current table without an error; `dash`:
 * the key holds a '-'. Of [cuda]'s values only one-line strings and arrays are read. */
static int accept_setting(struct reader* r, struct lean_span key, int dash, const struct value* v) {
  switch (r->table) {
    case ROOT: ++r->out->unknown_keys; return !span_is(key, "cuda") && !span_is(key, "torch") && !span_is(key, "env");
    case CUDA:
      if (v->kind == LONG_STRING) return 0;
      if (span_is(key, "version")) {
        if (v->kind != STRING || !lean_is_version_request(v->string.text, v->string.size)) return 0;
        r->out->version = v->string;
      } else if (span_is(key, "profile")) {
        return v->kind == STRING && (span_is(v->string, "minimal") || span_is(v->string, "torch") || span_is(v->string, "full"));
      } else if (span_is(key, "source")) {
        return v->kind == STRING && (span_is(v->string, "redist") || span_is(v->string, "pypi"));
      } else if (span_is(key, "components")) {
        return v->kind == ARRAY;
      } else if (span_is(key, "arch")) {
        if (v->kind != ARRAY || !each_compute_capability(v)) return 0;
        memcpy(r->out->arch, v->items, v->count * sizeof v->items[0]);
        r->out->arch_count = v->count;
      } else if (span_is(key, "libraries") || span_is(key, "lock")) {
        return 0; /* library specs and booleans: the full reader checks them */
      } else {
        ++r->out->unknown_keys;
      }
      return 1;
    case TORCH:
      if (!span_is(key, "version")) ++r->out->unknown_keys;
      return !span_is(key, "version") || v->kind != ARRAY;
    /* parse_cuda_toml's is_variable_name: a bare key without '-', not starting with a digit */
    case ENV: ++r->out->env_count; return !dash && !is_digit(key.text[0]) && v->kind != ARRAY;
    case OTHER: return 1;
  }
  return 0;
}

static int read_header(struct reader* r) {
  ++r->p;
  int dash = 0;
  struct lean_span name = read_bare_key(r, &dash);
  if (name.size == 0 || r->p == r->end || *r->p != ']') return 0;
  ++r->p;
  struct lean_span root = {"", 0};
  if (!set_insert(&r->keys, hash_span(hash_table(root), name))) return 0;
  r->table = span_is(name, "cuda") ? CUDA : span_is(name, "torch") ? TORCH : span_is(name, "env") ? ENV : OTHER;
  if (r->table == OTHER) ++r->out->unknown_keys;
  r->table_hash = hash_table(name);
  return read_line_end(r);
}

static int read_setting(struct reader* r) {
  int dash = 0;
  struct lean_span key = read_bare_key(r, &dash);
  skip_spaces(r);
  if (r->p == r->end || *r->p != '=') return 0;
  ++r->p;
  skip_spaces(r);
  struct value v;
  if (!read_value(r, &v) || !read_line_end(r)) return 0;
  return set_insert(&r->keys, hash_span(r->table_hash, key)) && accept_setting(r, key, dash, &v);
}

/* One line (more for a multi-line string), up to its '\n'. */
static int read_line(struct reader* r) {
  skip_spaces(r);
  if (at_line_end(r)) return 1;
  if (*r->p == '#') return read_comment(r);
  if (*r->p == '[') return r->end - r->p > 1 && r->p[1] != '[' && read_header(r);
  if (is_bare_key_char(*r->p)) return read_setting(r);
  return 0;
}

int lean_read_cuda_toml(const char* text, size_t size, struct lean_cuda_toml* out) {
  memset(out, 0, sizeof *out);
  if (size == 0) return 1; /* an empty file, whose text may be NULL */
  struct reader r;
  key_set_init(&r.keys, text, size);
  r.table = ROOT;
  struct lean_span root = {"", 0};
  r.table_hash = hash_table(root);
  r.out = out;
  r.p = text;
  r.end = text + size;
  int ok = 1;
  while (ok && r.p < r.end) {
    ok = read_line(&r);
    if (r.p < r.end) ++r.p; /* the '\n' each read_line stops at */
  }
  if (r.keys.slots != r.keys.small) free(r.keys.slots);
  return ok;
}
