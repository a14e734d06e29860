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

Result<std::span<const std::uint8_t>> SourceBuffer::fill(size_t count) {
  count = std::min(count, capacity_ - kKept);
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
