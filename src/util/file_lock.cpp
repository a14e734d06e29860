#include "util/file_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cudaenv {

// A whole-file write lock owned by the open file description (an "OFD" fcntl lock): like
// flock it belongs to this fd, not the process, and unlike flock it is a real POSIX lock
// on NFS, where roots shared by a cluster live.
static bool lock_whole_file(int fd, bool wait) {
  struct flock region {};
  region.l_type = F_WRLCK;
  region.l_whence = SEEK_SET;
  return ::fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &region) == 0;
}

// A link planted at the lock's name is never followed (nor its target created).
static int open_lock_file(const std::filesystem::path& path) {
  return ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
}

Result<FileLock> FileLock::acquire(const std::filesystem::path& path, const std::function<void()>& on_wait) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  int fd = open_lock_file(path);
  if (fd < 0) {
    return make_error("cannot open lock file " + path.string() + ": " + std::strerror(errno),
                      "check that " + path.parent_path().string() + " is writable");
  }
  if (on_wait && !lock_whole_file(fd, false) && (errno == EAGAIN || errno == EACCES)) on_wait();
  while (!lock_whole_file(fd, true)) {
    if (errno == EINTR) continue;
    int saved = errno;
    ::close(fd);
    return make_error("cannot lock " + path.string() + ": " + std::strerror(saved));
  }
  return FileLock(fd);
}

std::optional<FileLock> FileLock::try_acquire(const std::filesystem::path& path) {
  int fd = open_lock_file(path);
  if (fd < 0) return std::nullopt;
  if (!lock_whole_file(fd, false)) {
    ::close(fd);
    return std::nullopt;
  }
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace cudaenv
