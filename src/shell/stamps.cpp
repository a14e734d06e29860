#include "shell/stamps.h"

#include <string>

#include "lean/lean_os.h"

namespace cudaenv {

// One copy, in C, for the lean front's hook-env too.
Watch watch_mtime(const fs::path& stamps_dir, const fs::path& path) {
  std::string stamp(stamps_dir.native().size() + 64, '\0');
  switch (lean_watch_mtime(stamps_dir.c_str(), path.c_str(), stamp.data(), stamp.size())) {
    case LEAN_WATCH_STAMPED: stamp.resize(std::char_traits<char>::length(stamp.c_str())); return {path, fs::path(stamp)};
    case LEAN_WATCH_MISSING: return {path, std::nullopt};
    case LEAN_WATCH_STALE: break;
  }
  return {path, std::nullopt, true};
}

}  // namespace cudaenv
