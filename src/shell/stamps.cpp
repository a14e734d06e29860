#include "shell/stamps.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace cudaenv {

namespace {

bool same_time(const timespec& a, const timespec& b) { return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec; }

// An empty file whose mtime is the content: nothing to write atomically, but a link planted in
// its place must not get its target's mtime changed.
bool make_stamp(const fs::path& stamp, const timespec& mtime) {
  struct stat existing {};
  if (::stat(stamp.c_str(), &existing) == 0 && same_time(existing.st_mtim, mtime)) return true;
  std::error_code ignored;  // opening the stamp reports what matters
  fs::create_directories(stamp.parent_path(), ignored);
  int fd = ::open(stamp.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const timespec times[2] = {mtime, mtime};
  bool stamped = ::futimens(fd, times) == 0;
  ::close(fd);
  return stamped;
}

}  // namespace

Watch watch_mtime(const fs::path& stamps_dir, const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return {path, std::nullopt};
    return {path, std::nullopt, true};
  }
  fs::path stamp =
      stamps_dir / (std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(static_cast<long>(info.st_mtim.tv_nsec)));
  if (!make_stamp(stamp, info.st_mtim)) return {path, std::nullopt, true};
  return {path, stamp};
}

}  // namespace cudaenv
