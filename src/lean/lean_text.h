#ifndef CUDAENV_LEAN_TEXT_H
#define CUDAENV_LEAN_TEXT_H
/* Text the lean front prints, built whole before any of it is written: unsure halfway, the
 * full program answers instead and nothing was printed twice. */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lean_text {
  char* data; /* not NUL-terminated; free() it */
  size_t size, capacity;
  int failed; /* out of memory: the text is incomplete */
};

void lean_append(struct lean_text* out, const char* data, size_t size);
/* The NULL-terminated strings given, one after the other. */
void lean_append_all(struct lean_text* out, ...);

/* terminal_safe() (util/strings.h) changes nothing in printable ASCII; anything else the full
 * program escapes. */
int lean_is_terminal_safe(const char* text);

/* posix_quote() and fish_quote() (util/strings.h): single-quoted, safe for any bytes. */
void lean_posix_quote(struct lean_text* out, const char* text, size_t size);
void lean_fish_quote(struct lean_text* out, const char* text, size_t size);

#ifdef __cplusplus
}
#endif

#endif
