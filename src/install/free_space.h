#pragma once
// Whether the disks have room for what is about to be written, checked before downloads and
// extraction start, so a full disk is reported up front instead of half-way.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "util/result.h"

namespace cudaenv {

struct SpaceNeed {
  std::filesystem::path dir;  // an existing folder on the file system that must hold it
  std::uint64_t bytes = 0;
};

// Needs on one file system add up. An error names the folder, what it needs and has.
Status check_free_space(const std::vector<SpaceNeed>& needs, const std::string& what);

}  // namespace cudaenv
