#include "mirror/mirror_verify.h"

#include <sys/stat.h>

#include "util/sha256.h"

namespace cudaenv {

namespace fs = std::filesystem;

namespace {

// Why `path` no longer is the file that was synced, or "" when it still is.
Result<std::string> check_file(const fs::path& path, const Archive& file) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::string("is missing");
  auto size = static_cast<std::uint64_t>(st.st_size);
  if (size != file.size) {
    return "has " + std::to_string(size) + " bytes but " + std::to_string(file.size) + " were synced";
  }
  Sha256 hash;
  CUDAENV_TRY(hash_file_prefix(path, hash));
  std::string actual = hash.finish();
  if (actual != file.sha256) return "has sha256 " + actual + " but " + file.sha256 + " was synced";
  return std::string();
}

}  // namespace

Result<VerifyReport> verify_mirror(const fs::path& dir, const MirrorIndex& index) {
  VerifyReport report;
  for (const MirrorRelease& release : index.releases) {
    std::vector<const MirrorFile*> files{&release.manifest};
    for (const MirrorFile& file : release.files) files.push_back(&file);
    for (const MirrorFile* file : files) {
      fs::path path = dir / file->archive.url;
      CUDAENV_TRY_ASSIGN(auto problem, check_file(path, file->archive));
      ++report.files;
      report.bytes += file->archive.size;
      if (!problem.empty()) report.problems.push_back(MirrorProblem{.label = release.label, .path = path, .what = problem});
    }
  }
  return report;
}

}  // namespace cudaenv
