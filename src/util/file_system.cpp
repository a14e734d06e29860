#include "util/file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "util/file_compare.h"

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

bool is_on_local_file_system(const fs::path& path) {
  struct statfs info {};
  fs::path probe = path;
  while (::statfs(probe.c_str(), &info) != 0) {
    if ((errno != ENOENT && errno != ENOTDIR) || !probe.has_relative_path()) return false;
    probe = probe.parent_path();
  }
  switch (static_cast<unsigned long>(info.f_type) & 0xffffffffu) {
    case 0xEF53:      // ext2, ext3, ext4
    case 0x58465342:  // xfs
    case 0x9123683E:  // btrfs
    case 0x01021994:  // tmpfs
    case 0x794C7630:  // overlayfs
    case 0xF2F52010:  // f2fs
    case 0x2FC12FC1:  // zfs
      return true;
  }
  return false;
}

bool same_file(const fs::path& a, const fs::path& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool is_same_program(const fs::path& candidate, const fs::path& self) {
  struct stat a {
  }, b{};
  if (::stat(candidate.c_str(), &a) != 0 || ::stat(self.c_str(), &b) != 0) return false;
  if (a.st_dev == b.st_dev && a.st_ino == b.st_ino) return true;
  // Only a file of exactly its size is read.
  if (a.st_size != b.st_size) return false;
  int a_fd = ::open(candidate.c_str(), O_RDONLY | O_CLOEXEC), b_fd = ::open(self.c_str(), O_RDONLY | O_CLOEXEC);
  Result<bool> same = a_fd >= 0 && b_fd >= 0 ? same_bytes(a_fd, b_fd) : Result<bool>(false);
  if (a_fd >= 0) ::close(a_fd);
  if (b_fd >= 0) ::close(b_fd);
  return same && *same;
}

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

OpenFd::~OpenFd() {
  if (fd_ >= 0) ::close(fd_);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace cudaenv
