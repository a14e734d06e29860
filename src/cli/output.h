#pragma once
// How the CLI talks to people: one "cudaenv: error: ..." line plus indented hints.

#include <string>

#include "util/result.h"

namespace cudaenv {

void print_error(const Error& error);
void print_warning(const std::string& message);
// A note for people on stderr, so stdout stays parseable.
void print_note(const std::string& message);
bool stderr_wants_colour();

}  // namespace cudaenv
