#include "util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cudaenv {

Status write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::path temporary = path;
  temporary += ".tmp." + std::to_string(::getpid());
  auto failure = [&](const char* what) {
    std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    return make_error(std::string("cannot ") + what + " " + path.string() + ": " + reason,
                      "check that " + path.parent_path().string() + " exists and is writable");
  };
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return failure("write");
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return failure("write");
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return failure("write");
  if (::rename(temporary.c_str(), path.c_str()) != 0) return failure("replace");
  return ok_status();
}

}  // namespace cudaenv
