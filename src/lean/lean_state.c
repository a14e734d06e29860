#include "lean/lean_state.h"

#include <string.h>

/* ---- parse_state() and format_state() ---- */

static char* unescaped(const struct lean_memory* memory, const char* text, size_t size) {
  char* out = memory->allocate(memory->self, size + 1);
  if (!out) return NULL;
  size_t n = 0;
  for (size_t i = 0; i < size; ++i) {
    if (text[i] != '\\' || i + 1 == size) {
      out[n++] = text[i];
      continue;
    }
    char next = text[++i];
    out[n++] = next == 'n' ? '\n' : next == 't' ? '\t' : next;
  }
  out[n] = '\0';
  return out;
}

struct span {
  const char* text;
  size_t size;
};

/* read_owned(): a record of the right tag and number of fields, others skipped. */
static int read_record(const struct lean_memory* memory, const char* line, size_t size, struct lean_state* state) {
  struct span parts[5];
  size_t count = 0;
  for (const char *p = line, *end = line + size;;) {
    const char* tab = memchr(p, '\t', (size_t)(end - p));
    if (count == 5) return 1; /* more fields than any record has */
    parts[count].text = p;
    parts[count++].size = tab ? (size_t)(tab - p) : (size_t)(end - p);
    if (!tab) break;
    p = tab + 1;
  }
  char tag = parts[0].size == 1 ? parts[0].text[0] : '\0';
  int wanted = tag == 'A' || tag == 'N' ? 2 : tag == 'P' || tag == 'U' ? 3 : tag == 'S' ? 4 : 0;
  if ((int)count != wanted) return 1;
  char* fields[3] = {NULL, NULL, NULL};
  for (size_t i = 1; i < count; ++i) {
    if (!(fields[i - 1] = unescaped(memory, parts[i].text, parts[i].size))) return 0;
  }
  struct lean_owned owned = {fields[0], fields[1], fields[2]};
  if (tag == 'A') state->announced = fields[0];
  else if (tag == 'N') state->notice_key = fields[0];
  else if (tag == 'P') state->entries[state->entry_count++] = owned;
  else state->values[state->value_count++] = owned;
  return 1;
}

int lean_parse_state(const struct lean_memory* memory, const char* text, size_t size, struct lean_state* state) {
  memset(state, 0, sizeof *state);
  state->announced = state->notice_key = "";
  while (size && *text == '!') ++text, --size; /* an older shell function's stale mark */
  const char* end = text + size;
  const char* line_end = memchr(text, '\n', size);
  if (!line_end) line_end = end;
  size_t first = (size_t)(line_end - text);
  int old = first == 8 && !memcmp(text, "cudaenv1", 8);
  if (!old && !(first == 8 && !memcmp(text, "cudaenv2", 8))) return 1;
  size_t lines = 1;
  for (const char* p = text; (p = memchr(p, '\n', (size_t)(end - p))); ++p) ++lines;
  state->entries = memory->allocate(memory->self, lines * sizeof *state->entries);
  state->values = memory->allocate(memory->self, lines * sizeof *state->values);
  if (!state->entries || !state->values) return 0;
  /* A cudaenv1 state's watch lines end at an empty line. */
  int skipping = old;
  for (const char* line = line_end; line < end;) {
    ++line;
    const char* next = memchr(line, '\n', (size_t)(end - line));
    if (!next) next = end;
    size_t n = (size_t)(next - line);
    if (skipping) skipping = n != 0;
    else if (n && !read_record(memory, line, n, state)) return 0;
    line = next;
  }
  return 1;
}

static void append_escaped(struct lean_text* out, const char* text) {
  for (; *text; ++text) {
    if (*text == '\\') lean_append(out, "\\\\", 2);
    else if (*text == '\n') lean_append(out, "\\n", 2);
    else if (*text == '\t') lean_append(out, "\\t", 2);
    else lean_append(out, text, 1);
  }
}

/* A line of `tag` and the `count` fields given, each escaped. */
static void append_record(struct lean_text* out, const char* tag, size_t count, const char* a, const char* b, const char* c) {
  const char* fields[3] = {a, b, c};
  lean_append_all(out, tag, (char*)NULL);
  for (size_t i = 0; i < count; ++i) {
    lean_append(out, "\t", 1);
    append_escaped(out, fields[i]);
  }
  lean_append(out, "\n", 1);
}

void lean_format_state(const struct lean_state* state, struct lean_text* out) {
  lean_append_all(out, "cudaenv2\n", (char*)NULL);
  if (*state->announced) append_record(out, "A", 1, state->announced, NULL, NULL);
  if (*state->notice_key) append_record(out, "N", 1, state->notice_key, NULL, NULL);
  for (size_t i = 0; i < state->entry_count; ++i) {
    append_record(out, "P", 2, state->entries[i].variable, state->entries[i].value, NULL);
  }
  for (size_t i = 0; i < state->value_count; ++i) {
    const struct lean_owned* owned = &state->values[i];
    if (owned->previous) append_record(out, "S", 3, owned->variable, owned->value, owned->previous);
    else append_record(out, "U", 2, owned->variable, owned->value, NULL);
  }
}

/* ---- without_hook_changes() ---- */

static int is_named(const char* variable, const char* name, size_t name_size) {
  return strlen(variable) == name_size && !memcmp(variable, name, name_size);
}

/* `list` without the first of its ':'-separated parts equal to `entry`: 1 with `out` set (NULL:
 * no part left), 0 when none is equal, -1 when out of memory. */
static int without_entry(const struct lean_memory* memory, const char* list, const char* entry, const char** out) {
  size_t entry_size = strlen(entry);
  for (const char* part = list;;) {
    const char* colon = strchr(part, ':');
    size_t n = colon ? (size_t)(colon - part) : strlen(part);
    if (n == entry_size && !memcmp(part, entry, n)) {
      if (part == list && !colon) *out = NULL;
      else if (part == list) *out = colon + 1;
      else {
        /* Drop the part and the ':' before it. */
        size_t head = (size_t)(part - list) - 1, tail = strlen(part + n);
        char* kept = memory->allocate(memory->self, head + tail + 1);
        if (!kept) return -1;
        memcpy(kept, list, head);
        memcpy(kept + head, part + n, tail + 1);
        *out = kept;
      }
      return 1;
    }
    if (!colon) return 0;
    part = colon + 1;
  }
}

/* The value of the variable `name` once what `state` records of it is undone, the last
 * recorded first: each owned list entry loses its first occurrence, and a value still the
 * one cudaenv gave gets its previous one back (NULL: unset). Records of other variables
 * cannot change it, so each variable is reverted on its own. 0 when out of memory. */
static int reverted(const struct lean_memory* memory, const struct lean_state* state, const char* name, size_t name_size,
                    const char** value) {
  for (size_t i = state->entry_count; i-- > 0 && *value;) {
    const struct lean_owned* owned = &state->entries[i];
    if (is_named(owned->variable, name, name_size) && without_entry(memory, *value, owned->value, value) < 0) return 0;
  }
  for (size_t i = state->value_count; i-- > 0 && *value;) {
    const struct lean_owned* owned = &state->values[i];
    if (is_named(owned->variable, name, name_size) && !strcmp(*value, owned->value)) *value = owned->previous;
  }
  return 1;
}

static int is_state_entry(const char* entry) { return !strncmp(entry, LEAN_STATE_VARIABLE "=", sizeof LEAN_STATE_VARIABLE); }

char** lean_revert_state(const struct lean_memory* memory, char** environ, const struct lean_state* state) {
  size_t count = 0;
  while (environ[count]) ++count;
  char** out = memory->allocate(memory->self, (count + 1) * sizeof *out);
  if (!out) return NULL;
  size_t n = 0;
  for (char** entry = environ; *entry; ++entry) {
    if (is_state_entry(*entry)) continue;
    const char* eq = strchr(*entry, '=');
    size_t name_size = (size_t)(eq - *entry);
    const char* value = eq + 1;
    if (!reverted(memory, state, *entry, name_size, &value)) return NULL;
    if (!value) continue;
    if (value == eq + 1) {
      out[n++] = *entry;
      continue;
    }
    size_t value_size = strlen(value);
    char* changed = memory->allocate(memory->self, name_size + value_size + 2);
    if (!changed) return NULL;
    memcpy(changed, *entry, name_size + 1);
    memcpy(changed + name_size + 1, value, value_size + 1);
    out[n++] = changed;
  }
  out[n] = NULL;
  return out;
}

char** lean_without_hook_changes(const struct lean_memory* memory, char** environ) {
  char** entry = environ;
  while (*entry && !is_state_entry(*entry)) ++entry;
  if (!*entry) return environ; /* no hook ran */
  const char* text = *entry + sizeof LEAN_STATE_VARIABLE;
  struct lean_state state;
  return lean_parse_state(memory, text, strlen(text), &state) ? lean_revert_state(memory, environ, &state) : NULL;
}
