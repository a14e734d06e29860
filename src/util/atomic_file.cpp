#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace cudaenv {

namespace fs = std::filesystem;

fs::path temporary_path_beside(const fs::path& path) {
  unsigned char bytes[8] = {};
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    // Without entropy the name is guessable, but O_EXCL|O_NOFOLLOW still keep it safe.
    unsigned long long fallback = static_cast<unsigned long long>(::getpid()) ^ reinterpret_cast<std::uintptr_t>(&bytes);
    std::memcpy(bytes, &fallback, sizeof bytes);
  }
  char suffix[2 * sizeof bytes + 1];
  for (size_t i = 0; i < sizeof bytes; ++i) std::snprintf(suffix + 2 * i, 3, "%02x", bytes[i]);
  return path.parent_path() / ("." + path.filename().string() + ".tmp-" + suffix);
}

namespace {

Error write_error(const fs::path& path, const char* step, int error) {
  std::string hint = error == ENOSPC || error == EDQUOT
                         ? "free some space on the file system holding " + path.parent_path().string() +
                               " and run the command again; " + path.string() + " was left as it was"
                         : "check that " + path.parent_path().string() + " exists and is writable";
  return make_error(std::string("cannot ") + step + " " + path.string() + ": " + std::strerror(error), hint);
}

// Creates the temporary, retrying the (unlikely) name collision a few times.
int create_temporary(const fs::path& path, fs::path& temporary) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    temporary = temporary_path_beside(path);
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

// 0, or the errno of the failed write (ENOSPC for a write that made no progress).
int write_all(int fd, std::string_view content) {
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ENOSPC;
    written += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

Status write_file_atomically(const fs::path& path, std::string_view content, std::optional<mode_t> mode) {
  fs::path temporary;
  int fd = create_temporary(path, temporary);
  if (fd < 0) return write_error(path, "write", errno);
  int error = 0;
  struct stat existing {};
  if (!mode && ::lstat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) mode = existing.st_mode & 07777;
  if (mode && ::fchmod(fd, *mode) != 0) error = errno;
  if (!error) error = write_all(fd, content);
  // The data reaches the disk before the name does, so a crash leaves the old file.
  if (!error && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && !error) error = errno;
  const char* step = "write";
  if (!error && ::rename(temporary.c_str(), path.c_str()) != 0) {
    error = errno;
    step = "replace";
  }
  if (!error) return ok_status();
  ::unlink(temporary.c_str());
  return write_error(path, step, error);
}

}  // namespace cudaenv
