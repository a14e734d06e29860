#pragma once
// An exclusive lock held by the kernel on an open file (an fcntl open-file-description
// lock), so a killed holder never leaves a stale lock behind, and NFS honours it. The lock
// file itself may stay; it is never the guard.

#include <filesystem>
#include <functional>
#include <optional>

#include "util/result.h"

namespace cudaenv {

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
