#pragma once
// Reading the PyTorch index into CUDAENV_ROOT/cache (cmd_torch_index.cpp): run by the hidden
// `torch-index-refresh` when `cudaenv torch` finds the cache stale, and by `cudaenv update`.
// Only cudaenv-fetch links it: it needs libcurl.

#include "cli/session.h"
#include "torch/discovery.h"
#include "util/result.h"

namespace cudaenv {

// Writes the snapshot it read; on failure keeps the last good one and records the failure.
Result<TorchIndexSnapshot> refresh_torch_index(const Session& session);

}  // namespace cudaenv
