#include "install/byte_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace cudaenv {

Result<FileSource> FileSource::open(const std::filesystem::path& path) {
  OpenFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return make_error("cannot open " + path.string() + ": " + std::strerror(errno));
  return FileSource(std::move(fd), path);
}

Result<size_t> FileSource::read(std::span<std::uint8_t> out) {
  while (true) {
    ssize_t got = ::read(fd_.get(), out.data(), out.size());
    if (got >= 0) return static_cast<size_t>(got);
    if (errno != EINTR) return make_error("cannot read " + path_.string() + ": " + std::strerror(errno));
  }
}

Result<size_t> MemorySource::read(std::span<std::uint8_t> out) {
  size_t size = std::min(out.size(), data_.size());
  std::copy_n(data_.begin(), size, out.begin());
  data_ = data_.subspan(size);
  return size;
}

// The buffer, empty, keeps the last kKept bytes consumed before start_ (for unconsume), the
// lent bytes consumed last among them; lending ends.
void SourceBuffer::keep_consumed_lent() {
  size_t k = std::min(lent_pos_, kKept);
  std::memmove(buffer_.get(), buffer_.get() + k, kKept - k);
  std::memcpy(buffer_.get() + kKept - k, lent_.data() + lent_pos_ - k, k);
  start_ = end_ = kKept;
  lending_ = false;
}

void SourceBuffer::consume(size_t count) {
  offset_ += count;
  if (!lending_) {
    start_ += count;
    return;
  }
  lent_pos_ += count;
  if (lent_pos_ == lent_.size()) keep_consumed_lent();
}

void SourceBuffer::unconsume(size_t count) {
  offset_ -= count;
  if (lending_ && lent_pos_ >= count) {
    lent_pos_ -= count;
    return;
  }
  if (lending_) {
    // Back past the first lent byte: what was not consumed goes back to the source, and the
    // buffer holds the bytes to give back.
    source_.give_back(lent_.size() - lent_pos_);
    keep_consumed_lent();
  }
  start_ -= count;
}

Result<std::span<const std::uint8_t>> SourceBuffer::fill(size_t count) {
  count = std::min(count, capacity_ - kKept);
  if (lending_) {
    if (lent_.size() - lent_pos_ >= count) return buffered();
    size_t rest = lent_.size() - lent_pos_;
    const std::uint8_t* from = lent_.data() + lent_pos_;
    keep_consumed_lent();
    std::memcpy(buffer_.get() + end_, from, rest);
    end_ += rest;
  }
  if (start_ == end_ && !ended_) {
    std::span<const std::uint8_t> lent = source_.lend();
    if (!lent.empty() && lent.size() >= count) {
      size_t k = std::min(start_, kKept);
      std::memmove(buffer_.get() + kKept - k, buffer_.get() + start_ - k, k);
      start_ = end_ = kKept;
      lent_ = lent;
      lent_pos_ = 0;
      lending_ = true;
      return buffered();
    }
    if (!lent.empty()) source_.give_back(lent.size());
  }
  while (end_ - start_ < count && !ended_) {
    // What is left goes to the front, after the last kKept bytes consumed (for unconsume), so
    // the rest of the buffer is free.
    if (start_ > kKept) {
      std::memmove(buffer_.get(), buffer_.get() + start_ - kKept, end_ - start_ + kKept);
      end_ -= start_ - kKept;
      start_ = kKept;
    }
    CUDAENV_TRY_ASSIGN(size_t got, source_.read({buffer_.get() + end_, capacity_ - end_}));
    if (got == 0) ended_ = true;
    end_ += got;
  }
  return buffered();
}

}  // namespace cudaenv
