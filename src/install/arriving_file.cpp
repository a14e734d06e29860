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
  if (begun_) return;
  path_ = path;
  if (present > 0) open_file();
  file_end_ = arrived_ = present;
  begun_ = true;
  changed_.notify_all();
}

// Buffers kept for the downloader: a pause's worth (4 MB unread, downloader.cpp, in batches of up
// to 256 KiB), so a transfer that goes on after a pause reuses the buffers its extraction read
// rather than mapping new ones. Keeping 8, one install of the torch profile's wheels mapped 1,381
// buffers; keeping 16, 541. None is kept once the download is over.
constexpr size_t kMostSpares = 16;

void ArrivingFile::arrived(std::vector<char>&& bytes) {
  if (bytes.empty()) return;
  std::lock_guard lock(mutex_);
  arrived_ += bytes.size();
  pieces_.push_back(std::move(bytes));
  if (wake_at_ != 0 && arrived_ >= wake_at_) changed_.notify_all();
}

void ArrivingFile::open_file() {
  if (fd_.get() < 0) fd_ = OpenFd(::open(path_.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd_.get() < 0 && !error_) error_ = make_error("cannot read " + path_.string() + ": " + std::strerror(errno));
}

void ArrivingFile::written(std::uint64_t size) {
  std::lock_guard lock(mutex_);
  if (size <= file_end_) return;
  open_file();
  file_end_ = arrived_ = size;
  if (error_ || (wake_at_ != 0 && arrived_ >= wake_at_)) changed_.notify_all();
}

std::vector<char> ArrivingFile::spare() {
  std::lock_guard lock(mutex_);
  if (spares_.empty()) return {};
  std::vector<char> buffer = std::move(spares_.back());
  spares_.pop_back();
  buffer.clear();
  return buffer;
}

void ArrivingFile::verified(const std::filesystem::path& whole) {
  std::lock_guard lock(mutex_);
  verified_ = true;
  spares_.clear();
  whole_ = whole;
  if (!copying_) read_rest_from_whole();
  changed_.notify_all();
}

void ArrivingFile::read_rest_from_whole() {
  if (whole_.empty() || pieces_.empty()) return;
  // The file is the one the reader may have open already (renamed from .part), or opened now.
  path_ = whole_;
  open_file();
  file_end_ = arrived_;
  pieces_.clear();
  front_read_ = 0;
}

void ArrivingFile::stop() {
  std::lock_guard lock(mutex_);
  stopped_ = true;
  spares_.clear();
  changed_.notify_all();
}

std::uint64_t ArrivingFile::backlog() const {
  std::lock_guard lock(mutex_);
  return arrived_ - read_;
}

void ArrivingFile::wake_below(std::uint64_t backlog, std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  wake_below_ = backlog;
  wake_ = std::move(wake);
  woken_by_read();
}

void ArrivingFile::woken_by_read() {
  if (!wake_ || arrived_ - read_ >= wake_below_) return;
  std::function<void()> wake = std::move(wake_);
  wake_ = nullptr;
  wake();
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
  take_back_lent();
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
  read_rest_from_whole();
  if (error_) return *error_;
  if (stopped_) return stopped();
  if (read_ == arrived_) return size_t{0};  // verified: the archive's end
  if (read_ < file_end_) return read_file(out, lock);
  // Only this reader takes pieces off the front; the downloader's push_back moves none of them,
  // and verified() leaves them while copying_.
  const std::vector<char>& piece = pieces_.front();
  size_t size = std::min(out.size(), piece.size() - front_read_);
  const char* from = piece.data() + front_read_;
  copying_ = true;
  lock.unlock();
  std::memcpy(out.data(), from, size);
  lock.lock();
  copying_ = false;
  read_ += size;
  front_read_ += size;
  woken_by_read();
  if (front_read_ == piece.size()) {
    keep_spare(std::move(pieces_.front()));
    pieces_.pop_front();
    front_read_ = 0;
  }
  return size;
}

void ArrivingFile::keep_spare(std::vector<char>&& buffer) {
  if (!verified_ && !stopped_ && spares_.size() < kMostSpares) spares_.push_back(std::move(buffer));
}

void ArrivingFile::take_back_lent() {
  if (lent_.capacity() == 0) return;
  keep_spare(std::move(lent_));
  lent_ = {};
}

std::span<const std::uint8_t> ArrivingFile::lend() {
  std::lock_guard lock(mutex_);
  take_back_lent();
  read_rest_from_whole();
  if (error_ || stopped_ || read_ < file_end_ || pieces_.empty()) return {};
  lent_ = std::move(pieces_.front());
  pieces_.pop_front();
  std::span<const std::uint8_t> lent{reinterpret_cast<const std::uint8_t*>(lent_.data()) + front_read_,
                                     lent_.size() - front_read_};
  read_ += lent.size();
  front_read_ = 0;
  woken_by_read();
  return lent;
}

void ArrivingFile::give_back(size_t count) {
  std::lock_guard lock(mutex_);
  read_ -= count;
  // Read from the file by now (verified(whole)), or from the batch again.
  if (read_ < file_end_) {
    take_back_lent();
    return;
  }
  front_read_ = lent_.size() - count;
  pieces_.push_front(std::move(lent_));
  lent_ = {};
}

Result<size_t> ArrivingFile::read_file(std::span<std::uint8_t> out, std::unique_lock<std::mutex>& lock) {
  size_t size = static_cast<size_t>(std::min<std::uint64_t>(out.size(), file_end_ - read_));
  std::uint64_t offset = read_;
  lock.unlock();
  // Only this reader moves read_, and the file's first file_end_ bytes stay as they are.
  ssize_t got;
  do got = ::pread(fd_.get(), out.data(), size, static_cast<off_t>(offset));
  while (got < 0 && errno == EINTR);
  if (got <= 0) {
    return make_error("cannot read " + path_.string() + ": " +
                      (got < 0 ? std::strerror(errno) : "it is shorter than the bytes that arrived"));
  }
  lock.lock();
  read_ += static_cast<std::uint64_t>(got);
  woken_by_read();
  return static_cast<size_t>(got);
}

}  // namespace cudaenv
