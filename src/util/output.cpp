#include "util/output.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "util/strings.h"

namespace cudaenv {

bool wants_colour(std::FILE* stream) {
  const char* no_colour = std::getenv("NO_COLOR");
  return ::isatty(::fileno(stream)) && !(no_colour && *no_colour);
}

bool wants_progress_bars(std::FILE* stream, bool turned_off) { return !turned_off && ::isatty(::fileno(stream)); }

// Messages quote names, paths and server text: each line is escaped (terminal_safe), and a
// message is one line whatever it quotes.
static void print_tagged(const char* tag, const char* colour, const std::string& message) {
  std::string safe = terminal_safe(message);
  if (wants_colour(stderr)) std::fprintf(stderr, "cudaenv: %s%s:\033[0m %s\n", colour, tag, safe.c_str());
  else std::fprintf(stderr, "cudaenv: %s: %s\n", tag, safe.c_str());
}

static void print_lines(const char* indent, const std::string& text) {
  for (const std::string& line : split(text, '\n')) std::fprintf(stderr, "%s%s\n", indent, terminal_safe(line).c_str());
}

static const char* const kHintIndent = "  ";

std::vector<std::string> error_lines(const Error& error) {
  std::vector<std::string> lines{"cudaenv: error: " + error.message};
  if (!error.hint.empty()) {
    for (const std::string& line : split(error.hint, '\n')) lines.push_back(kHintIndent + line);
  }
  return lines;
}

void print_error(const Error& error) {
  print_tagged("error", "\033[1;31m", error.message);
  if (!error.hint.empty()) print_lines(kHintIndent, error.hint);
}

void print_warning(const std::string& message) { print_tagged("warning", "\033[1;33m", message); }

void print_note(const std::string& message) { print_lines("", message); }

}  // namespace cudaenv
