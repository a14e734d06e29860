#pragma once
// What a selection's environment needs from above core (core/toolkit_env.h), for `exec`, `env`
// and the prompt hook: uv's torch backend, and the verdict on the project's host compiler.

#include "cli/session.h"
#include "core/toolkit_env.h"
#include "util/result.h"

namespace cudaenv {

// UV_TORCH_BACKEND as [torch] backend asks: the cuXY `cudaenv torch` would choose for the
// toolkit and the driver (the selected target's, else this machine's), from the shipped table or
// the cached index (never the network); and the selected target's variables. An error where the
// selected target cannot be read.
Result<SelectionExtras> selection_extras(const Session& session, const Selection& selection);

// A host compiler against `toolkit` (doctor/host_compiler.h): missing, without its C++ driver, or
// newer than the toolkit's crt/host_config.h (else the shipped facts) accepts; without a
// toolkit, only the first two.
Status check_toolkit_compiler(const Session& session, const std::string& compiler, const Toolkit* toolkit);
// The project's [cuda] host_compiler against the selected toolkit, the error naming the file;
// ok where none is set.
Status check_selection_compiler(const Session& session, const Selection& selection);

}  // namespace cudaenv
