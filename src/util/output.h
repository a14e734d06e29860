#pragma once
// How cudaenv talks to people: one "cudaenv: error: ..." line plus indented hints, the same
// from every command, the shim and the shell hook.

#include <cstdio>
#include <string>
#include <vector>

#include "util/result.h"

namespace cudaenv {

// The error as its lines, hints indented: what print_error prints, without colour.
std::vector<std::string> error_lines(const Error& error);

void print_error(const Error& error);
void print_warning(const std::string& message);
// A note for people on stderr, so stdout stays parseable.
void print_note(const std::string& message);
// The one colour policy: only when `stream` is a terminal, and never when NO_COLOR is set to a
// non-empty value (no-color.org).
bool wants_colour(std::FILE* stream);
// Redrawn progress bars: only on a terminal, and not when `turned_off` (--no-progress,
// CUDAENV_NO_PROGRESS=1), as uv does. NO_COLOR leaves them: they have no colour to take away.
bool wants_progress_bars(std::FILE* stream, bool turned_off);

}  // namespace cudaenv
