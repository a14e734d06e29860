#pragma once
// `mirror verify`: every file a mirror's index names re-checked on disk (size, then sha256).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "mirror/release_discovery.h"
#include "util/result.h"

namespace cudaenv {

struct MirrorProblem {
  std::string label;  // the release to sync again
  std::filesystem::path path;
  std::string what;  // "is missing", "has sha256 ... but ... was synced"
};

struct VerifyReport {
  size_t files = 0;
  std::uint64_t bytes = 0;
  std::vector<MirrorProblem> problems;
};

Result<VerifyReport> verify_mirror(const std::filesystem::path& dir, const MirrorIndex& index);

}  // namespace cudaenv
