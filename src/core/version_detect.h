#pragma once
// Reading a toolkit's CUDA version from what it ships: version.json, cuda.h, nvcc's banner.

#include <optional>
#include <string_view>

#include "core/version.h"
#include "util/file_system.h"

namespace cudaenv {

// {"cuda": {"version": "12.1.1"}} -> 12.1.1
std::optional<Version> version_from_version_json(std::string_view text);
// "#define CUDA_VERSION 12010" -> 12.1
std::optional<Version> version_from_cuda_h(std::string_view text);
// "Cuda compilation tools, release 12.1, V12.1.105" -> 12.1
std::optional<Version> version_from_nvcc_banner(std::string_view text);

// The version of the toolkit at `home` from the files it ships, without running anything:
// version.json, else include/cuda.h, else targets/*/include/cuda.h (redist layouts).
std::optional<Version> shipped_toolkit_version(const FileSystemView& fs, const fs::path& home);

}  // namespace cudaenv
