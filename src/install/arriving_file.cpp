#include "install/arriving_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace cudaenv {

void ArrivingFile::begin(const std::filesystem::path& path, std::uint64_t present) {
  std::lock_guard lock(mutex_);
  if (!begun_) {  // a later try writes the same file
    path_ = path;
    fd_ = OpenFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd_.get() < 0 && !error_) error_ = make_error("cannot read " + path.string() + ": " + std::strerror(errno));
  }
  begun_ = true;
  arrived_ = std::max(arrived_, present);
  changed_.notify_all();
}

void ArrivingFile::arrived(std::uint64_t size) {
  std::lock_guard lock(mutex_);
  if (size <= arrived_) return;
  arrived_ = size;
  if (wake_at_ != 0 && arrived_ >= wake_at_) changed_.notify_all();
}

void ArrivingFile::verified() {
  std::lock_guard lock(mutex_);
  verified_ = true;
  changed_.notify_all();
}

void ArrivingFile::stop() {
  std::lock_guard lock(mutex_);
  stopped_ = true;
  changed_.notify_all();
}

std::uint64_t ArrivingFile::backlog() const {
  std::lock_guard lock(mutex_);
  return arrived_ - read_;
}

bool ArrivingFile::is_verified() const {
  std::lock_guard lock(mutex_);
  return verified_;
}

bool ArrivingFile::wait_begun() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return begun_ || error_ || stopped_; });
  return !error_ && !stopped_;
}

// A reader that had to wait is woken for a batch of bytes, or after a while for what is there,
// not for each write the downloader makes: waking takes a core back from another
// archive's extraction (CoreSlots), and a switch per piece cost both decoders their caches (a
// 2 GB install spent half again the CPU). The batch is below the backlog at which the download
// pauses (downloader.cpp), so a reader never waits on its own transfer.
constexpr std::uint64_t kWakeBytes = 1 << 20;
constexpr std::chrono::milliseconds kWakeAfter{50};

Result<size_t> ArrivingFile::read(std::span<std::uint8_t> out) {
  // What the install stopped for is reported by whoever stopped it.
  auto stopped = [&] { return make_error("the install stopped before " + path_.string() + " was read to its end"); };
  if (turns_ && !turns_->between_reads()) return stopped();
  std::unique_lock lock(mutex_);
  auto ready = [&] { return error_ || stopped_ || (begun_ && (read_ < arrived_ || verified_)); };
  if (!ready()) {
    lock.unlock();
    if (turns_) turns_->lend();
    lock.lock();
    // arrived() wakes the reader only once what it waits for is there: a wake per write cost a
    // futex call and a switch for nothing (113k futex calls in one install of 15 wheels).
    auto batch = [&] { return error_ || stopped_ || (begun_ && (arrived_ - read_ >= kWakeBytes || verified_)); };
    wake_at_ = read_ + kWakeBytes;
    if (!changed_.wait_for(lock, kWakeAfter, batch)) {
      wake_at_ = read_ + 1;
      changed_.wait(lock, ready);
    }
    wake_at_ = 0;
    lock.unlock();
    if (turns_ && !turns_->take_back()) return stopped();
    lock.lock();
  }
  if (error_) return *error_;
  if (stopped_) return stopped();
  if (read_ == arrived_) return size_t{0};  // verified: the archive's end
  size_t size = static_cast<size_t>(std::min<std::uint64_t>(out.size(), arrived_ - read_));
  std::uint64_t offset = read_;
  lock.unlock();
  // Only this reader moves read_, and the bytes below arrived_ stay as they are.
  ssize_t got;
  do got = ::pread(fd_.get(), out.data(), size, static_cast<off_t>(offset));
  while (got < 0 && errno == EINTR);
  if (got <= 0) {
    return make_error("cannot read " + path_.string() + ": " +
                      (got < 0 ? std::strerror(errno) : "it is shorter than the bytes that arrived"));
  }
  lock.lock();
  read_ += static_cast<std::uint64_t>(got);
  return static_cast<size_t>(got);
}

}  // namespace cudaenv
