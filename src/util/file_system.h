#pragma once
// The disk: the read-only view that pure logic (version selection, toolkit listing) works
// against, so tests can hand it an in-memory tree instead, the one way cudaenv writes a file, and
// the lock that keeps two writers of the same files apart.

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace cudaenv {

namespace fs = std::filesystem;

// The most read_file takes by default: enough for any cuda.toml, version file or receipt,
// small enough that a hostile repository cannot make a shim allocate much.
inline constexpr std::size_t kSmallFileLimit = std::size_t{1} << 20;
// Toolkit headers (cuda.h is over 1 MiB) and manifests.
inline constexpr std::size_t kLargeFileLimit = std::size_t{64} << 20;

enum class EntryKind { missing, file, directory, other };

class FileSystemView {
 public:
  virtual ~FileSystemView() = default;
  // Follows symlinks, like stat(2).
  virtual EntryKind kind(const fs::path& path) const = 0;
  virtual bool is_executable(const fs::path& path) const = 0;
  // The contents of a regular file of at most `limit` bytes; FIFOs, devices, folders and
  // bigger files (/proc files that claim size 0 included) are errors naming the file.
  virtual Result<std::string> read_file(const fs::path& path, std::size_t limit = kSmallFileLimit) const = 0;
  // Names of the entries in a directory, sorted; empty if it is not one.
  virtual std::vector<std::string> list_dir(const fs::path& path) const = 0;
  // The target of a symlink, or nullopt if `path` is not a symlink.
  virtual std::optional<fs::path> read_link(const fs::path& path) const = 0;
};

class RealFileSystem final : public FileSystemView {
 public:
  EntryKind kind(const fs::path& path) const override;
  bool is_executable(const fs::path& path) const override;
  Result<std::string> read_file(const fs::path& path, std::size_t limit = kSmallFileLimit) const override;
  std::vector<std::string> list_dir(const fs::path& path) const override;
  std::optional<fs::path> read_link(const fs::path& path) const override;
};

// Whether stat(2) of `path` (or of the folder it would be in) answers from the kernel's own
// knowledge: a local file system. A network one may answer from attributes cached before
// another host's change, so what rests on its stamps is not kept (NFS, CIFS, FUSE, and any
// file system not known to be local).
bool is_on_local_file_system(const fs::path& path);

// Whether two paths name one file (the same device and inode, following links).
bool same_file(const fs::path& a, const fs::path& b);

// Whether `candidate` is the program `self` under another name: a hard link or symlink to it,
// or a copy (the same size and bytes).
bool is_same_program(const fs::path& candidate, const fs::path& self);

// The errors read_file gives, shared with the in-memory view of the tests.
Error not_regular_file_error(const fs::path& path, const char* what);
Error file_too_large_error(const fs::path& path, std::size_t limit);

// The one way cudaenv writes a file: `content` goes to a new temporary file beside `path`
// (a random name, created with O_EXCL|O_NOFOLLOW, so no planted file or link is ever
// written through), is synced, and is renamed over `path`. Readers see the old file or the
// new one, never half of one; a failure (a full disk) leaves `path` as it was and no
// temporary behind, and names the file. A symlink at `path` is replaced, not followed.
// The new file gets `mode`, or without one the mode of the regular file it replaces
// (0644 less the umask for a new file).
Status write_file_atomically(const std::filesystem::path& path, std::string_view content,
                             std::optional<mode_t> mode = std::nullopt);

// A name beside `path` that nothing else will pick (".<name>.tmp-<random>"), for files that
// are put in place by rename but not written (hard links).
std::filesystem::path temporary_path_beside(const std::filesystem::path& path);

// An open file descriptor, closed when it goes (-1: none).
class OpenFd {
 public:
  explicit OpenFd(int fd = -1) : fd_(fd) {}
  OpenFd(OpenFd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  OpenFd& operator=(OpenFd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  OpenFd(const OpenFd&) = delete;
  OpenFd& operator=(const OpenFd&) = delete;
  ~OpenFd();
  int get() const { return fd_; }

 private:
  int fd_;
};

// An exclusive lock held by the kernel on an open file (an fcntl open-file-description
// lock), so a killed holder never leaves a stale lock behind, and NFS honours it. The lock
// file itself may stay; it is never the guard.
class FileLock {
 public:
  // Blocks until the lock on `path` (created if missing) is held; `on_wait` runs first when
  // another process holds it, so the caller can say what it is waiting for.
  static Result<FileLock> acquire(const std::filesystem::path& path, const std::function<void()>& on_wait = {});
  // The lock if no one holds it now; nullopt when another holder has it (or the lock file
  // cannot be opened), without waiting.
  static std::optional<FileLock> try_acquire(const std::filesystem::path& path);
  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace cudaenv
