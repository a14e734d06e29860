#pragma once
// What a selection's environment needs from above core (core/toolkit_env.h), for `exec`, `env`
// and the prompt hook: uv's torch backend, and the selected target's variables.

#include <optional>
#include <string>

#include "core/data_dir.h"
#include "core/layout.h"
#include "core/selection.h"
#include "core/toolkit_env.h"
#include "util/environment.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

// UV_TORCH_BACKEND as [torch] backend asks: the cuXY `cudaenv torch` would choose for the
// toolkit and the driver (the selected target's, else this machine's), from the shipped table or
// the cached index (never the network); and the selected target's variables. The answer is
// remembered in the layout's cache. An error where the selected target cannot be read.
Result<SelectionExtras> selection_extras(const FileSystemView& fs, const EnvMap& env, const Layout& layout, const DataFiles& data,
                                         const Selection& selection);

// The memo of answers, one "KEY ANSWER" line each: the answer for `key` ("-" for none), or
// nullopt where it holds none, or one no choice gives (a damaged file is worked out again).
std::optional<std::string> recalled_backend(const std::string& memo, const std::string& key);
// The memo with `key`'s answer last, the oldest entries dropped past `limit`.
std::string remembered_backend(const std::string& memo, const std::string& key, const std::string& answer, size_t limit);

}  // namespace cudaenv
