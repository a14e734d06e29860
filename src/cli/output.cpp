#include "cli/output.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "util/strings.h"

namespace cudaenv {

bool stderr_wants_colour() {
  const char* no_colour = std::getenv("NO_COLOR");
  return ::isatty(2) && !(no_colour && *no_colour);
}

static void print_tagged(const char* tag, const char* colour, const std::string& message) {
  if (stderr_wants_colour()) std::fprintf(stderr, "cudaenv: %s%s:\033[0m %s\n", colour, tag, message.c_str());
  else std::fprintf(stderr, "cudaenv: %s: %s\n", tag, message.c_str());
}

void print_error(const Error& error) {
  print_tagged("error", "\033[1;31m", error.message);
  if (error.hint.empty()) return;
  for (const std::string& line : split(error.hint, '\n')) std::fprintf(stderr, "  %s\n", line.c_str());
}

void print_warning(const std::string& message) { print_tagged("warning", "\033[1;33m", message); }

void print_note(const std::string& message) { std::fprintf(stderr, "%s\n", message.c_str()); }

}  // namespace cudaenv
