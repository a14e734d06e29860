#pragma once
// Which file runs for a program under a selection: the one answer the shim, `cudaenv which`
// and doctor give.

#include <filesystem>
#include <functional>
#include <string>

#include "core/selection.h"

namespace cudaenv {

// The selected toolkit's bin/<program>, or for "system" the first <program> on PATH after
// the shims folder. `is_a_shim` tells a shim under another name apart: the shim refuses to
// run one, which would only start it again.
Result<fs::path> program_for_selection(const FileSystemView& fs, const EnvMap& env, const Layout& layout,
                                       const Selection& selection, const std::string& program,
                                       const std::function<bool(const fs::path&)>& is_a_shim = {});

}  // namespace cudaenv
