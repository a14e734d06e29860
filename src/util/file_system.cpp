#include "util/file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace cudaenv {

EntryKind RealFileSystem::kind(const fs::path& path) const {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return EntryKind::missing;
  if (S_ISREG(st.st_mode)) return EntryKind::file;
  if (S_ISDIR(st.st_mode)) return EntryKind::directory;
  return EntryKind::other;
}

bool RealFileSystem::is_executable(const fs::path& path) const {
  return kind(path) == EntryKind::file && ::access(path.c_str(), X_OK) == 0;
}

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

std::string size_text(std::size_t bytes) {
  if (bytes % (std::size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

Error not_regular_file_error(const fs::path& path, const char* what) {
  return make_error("cannot read " + path.string() + ": it is " + what + ", not a regular file",
                    "replace it with a regular file");
}

Error file_too_large_error(const fs::path& path, std::size_t limit) {
  return make_error("cannot read " + path.string() + ": it is larger than " + size_text(limit),
                    "cudaenv reads files of at most " + size_text(limit) + " here; replace it with a smaller one");
}

Result<std::string> RealFileSystem::read_file(const fs::path& path, std::size_t limit) const {
  // stat first, so a device is never opened; O_NONBLOCK so a FIFO swapped in afterwards
  // cannot make open() wait for a writer (fstat then refuses it).
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return not_regular_file_error(path, kind_of(st.st_mode));
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return make_error("cannot read " + path.string() + ": " + std::strerror(errno), "check its permissions");
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return not_regular_file_error(path, kind_of(st.st_mode));
  }
  if (static_cast<std::uint64_t>(st.st_size) > limit) {
    ::close(fd);
    return file_too_large_error(path, limit);
  }
  // Files under /proc claim size 0 and may be endless: stop once past the limit. Whole
  // buffers only, since /proc/self/pagemap refuses reads of other sizes.
  std::string content;
  char buffer[8192];
  ssize_t n = 0;
  while (content.size() <= limit) {
    n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    content.append(buffer, static_cast<size_t>(n));
  }
  int saved = errno;
  ::close(fd);
  if (n < 0) return make_error("cannot read " + path.string() + ": " + std::strerror(saved), "check its permissions");
  if (content.size() > limit) return file_too_large_error(path, limit);
  return content;
}

std::vector<std::string> RealFileSystem::list_dir(const fs::path& path) const {
  std::vector<std::string> names;
  DIR* dir = ::opendir(path.c_str());
  if (!dir) return names;
  while (const dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<fs::path> RealFileSystem::read_link(const fs::path& path) const {
  char buffer[4096];
  ssize_t n = ::readlink(path.c_str(), buffer, sizeof buffer);
  if (n < 0 || static_cast<size_t>(n) == sizeof buffer) return std::nullopt;
  return fs::path(std::string(buffer, static_cast<size_t>(n)));
}

}  // namespace cudaenv
