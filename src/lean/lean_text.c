#include "lean/lean_text.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void lean_append(struct lean_text* out, const char* data, size_t size) {
  if (out->failed) return;
  if (out->size + size > out->capacity) {
    size_t capacity = 2 * (out->size + size) + 4096;
    char* grown = realloc(out->data, capacity);
    if (!grown) {
      out->failed = 1;
      return;
    }
    out->data = grown;
    out->capacity = capacity;
  }
  if (size) memcpy(out->data + out->size, data, size);
  out->size += size;
}

void lean_append_all(struct lean_text* out, ...) {
  va_list args;
  va_start(args, out);
  for (const char* part; (part = va_arg(args, const char*));) lean_append(out, part, strlen(part));
  va_end(args);
}

int lean_is_terminal_safe(const char* text) {
  for (; *text; ++text) {
    if (*text < 0x20 || *text > 0x7e) return 0;
  }
  return 1;
}

/* `text` in single quotes, each byte `escaped` says is special written as it gives it. */
static void quote(struct lean_text* out, const char* text, size_t size, const char* (*escaped)(char c)) {
  lean_append(out, "'", 1);
  size_t plain = 0;
  for (size_t i = 0; i < size; ++i) {
    const char* escape = escaped(text[i]);
    if (!escape) continue;
    lean_append(out, text + plain, i - plain);
    lean_append(out, escape, strlen(escape));
    plain = i + 1;
  }
  lean_append(out, text + plain, size - plain);
  lean_append(out, "'", 1);
}

/* A quote ends the quoted text, goes escaped, and starts it again. */
static const char* posix_escape(char c) { return c == '\'' ? "'\\''" : NULL; }
static const char* fish_escape(char c) { return c == '\'' ? "\\'" : c == '\\' ? "\\\\" : NULL; }

void lean_posix_quote(struct lean_text* out, const char* text, size_t size) { quote(out, text, size, posix_escape); }

void lean_fish_quote(struct lean_text* out, const char* text, size_t size) { quote(out, text, size, fish_escape); }
