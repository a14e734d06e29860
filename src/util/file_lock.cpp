#include "util/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cudaenv {

Result<FileLock> FileLock::acquire(const std::filesystem::path& path, const std::function<void()>& on_wait) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return make_error("cannot open lock file " + path.string() + ": " + std::strerror(errno),
                      "check that " + path.parent_path().string() + " is writable");
  }
  if (on_wait && ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) on_wait();
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int saved = errno;
    ::close(fd);
    return make_error("cannot lock " + path.string() + ": " + std::strerror(saved));
  }
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace cudaenv
