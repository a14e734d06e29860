#pragma once

#include <filesystem>
#include <string_view>

#include "util/result.h"

namespace cudaenv {

// Writes `content` to a temporary file beside `path` and renames it over `path`, so
// readers see either the old file or the new one, never half of it.
Status write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace cudaenv
