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

void lean_posix_quote(struct lean_text* out, const char* text, size_t size) {
  lean_append(out, "'", 1);
  for (size_t i = 0; i < size; ++i) {
    if (text[i] == '\'') lean_append(out, "'\\''", 4);
    else lean_append(out, text + i, 1);
  }
  lean_append(out, "'", 1);
}

void lean_fish_quote(struct lean_text* out, const char* text, size_t size) {
  lean_append(out, "'", 1);
  for (size_t i = 0; i < size; ++i) {
    if (text[i] == '\'' || text[i] == '\\') lean_append(out, "\\", 1);
    lean_append(out, text + i, 1);
  }
  lean_append(out, "'", 1);
}
