#include "util/data_dir.h"

#include <cstdlib>
#include <vector>

namespace cudaenv {

namespace fs = std::filesystem;

Result<fs::path> manifests_dir() {
  if (const char* dir = std::getenv("CUDAENV_MANIFESTS_DIR"); dir && *dir) return fs::path(dir);
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> candidates;
  if (!ec) candidates.push_back(self.parent_path().parent_path() / "share/cudaenv/manifests");
  candidates.push_back(CUDAENV_SOURCE_MANIFESTS_DIR);
  for (const fs::path& candidate : candidates) {
    if (fs::is_directory(candidate, ec)) return candidate;
  }
  return make_error("cudaenv's data folder was not found (looked in " + candidates.front().string() + ")",
                    "reinstall cudaenv with ./install.sh, or set CUDAENV_MANIFESTS_DIR");
}

}  // namespace cudaenv
