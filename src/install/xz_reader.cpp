#include "install/xz_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace cudaenv {

namespace {

// Each extraction may use this much for decoder threads; liblzma falls back to fewer threads
// (or one) rather than exceed it, which keeps `cudaenv install` within its memory budget.
constexpr std::uint64_t kThreadingMemoryLimit = 16ull << 20;

}  // namespace

bool is_xz_file(const std::filesystem::path& path) {
  static const unsigned char magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
  unsigned char head[6] = {};
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool xz = ::read(fd, head, sizeof head) == static_cast<ssize_t>(sizeof head) && std::memcmp(head, magic, 6) == 0;
  ::close(fd);
  return xz;
}

XzReader::~XzReader() {
  lzma_end(&stream_);
  if (mapped_) ::munmap(mapped_, mapped_size_);
}

Status XzReader::open(archive* reader, const std::filesystem::path& path, unsigned threads) {
  // Mapped, not read: the decoder reads the page cache itself instead of a copy of it. The file
  // is this install's own download, under its lock, so nothing truncates it while mapped.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error("cannot open " + path.string() + ": " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) == 0 && info.st_size > 0) {
    void* mapped = ::mmap(nullptr, static_cast<size_t>(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped != MAP_FAILED) {
      mapped_ = mapped;
      mapped_size_ = static_cast<size_t>(info.st_size);
      ::madvise(mapped_, mapped_size_, MADV_SEQUENTIAL);
    }
  }
  int error = errno;
  ::close(fd);
  if (info.st_size > 0 && !mapped_) return make_error("cannot read " + path.string() + ": " + std::strerror(error));
  stream_.next_in = static_cast<const std::uint8_t*>(mapped_);
  stream_.avail_in = mapped_size_;
  lzma_mt options{};
  options.threads = std::max(1u, threads);
  options.memlimit_threading = kThreadingMemoryLimit;
  options.memlimit_stop = UINT64_MAX;
  // The archive matched its manifest's sha256 before extraction: the xz check (CRC64 of the
  // content, about 1.5% of the decoding time) could only tell what that already proved.
  options.flags = LZMA_CONCATENATED | LZMA_IGNORE_CHECK;
  // One thread: the plain decoder, which needs no block hand-over between threads.
  lzma_ret started = options.threads > 1 ? lzma_stream_decoder_mt(&stream_, &options)
                                         : lzma_stream_decoder(&stream_, options.memlimit_stop, options.flags);
  if (started != LZMA_OK) {
    return make_error("cannot start the xz decoder for " + path.string());
  }
  // As xz's own output buffer is small: it stays in the core's cache between liblzma and the
  // tar writer.
  out_.resize(64 << 10);
  if (archive_read_open(reader, this, nullptr, &XzReader::read, nullptr) != ARCHIVE_OK) {
    return make_error("cannot read " + path.string() + ": " + archive_error_string(reader));
  }
  return ok_status();
}

// What the decoder has read leaves this process's resident memory (the page cache keeps it), so
// that a mapped 1 GB archive costs no more memory than a read buffer would.
void XzReader::release_read_input() {
  constexpr size_t kReleaseStep = 4 << 20;
  size_t read = mapped_size_ - stream_.avail_in;
  if (read - released_ < kReleaseStep) return;
  size_t end = read & ~(kReleaseStep - 1);
  ::madvise(static_cast<char*>(mapped_) + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

la_ssize_t XzReader::read(archive* reader, void* self, const void** buffer) {
  return static_cast<XzReader*>(self)->next(reader, buffer);
}

la_ssize_t XzReader::next(archive* reader, const void** buffer) {
  *buffer = out_.data();
  stream_.next_out = out_.data();
  stream_.avail_out = out_.size();
  while (!finished_ && stream_.avail_out == out_.size()) {
    release_read_input();
    lzma_ret status = lzma_code(&stream_, LZMA_FINISH);
    if (status == LZMA_STREAM_END) {
      finished_ = true;
    } else if (status != LZMA_OK) {
      archive_set_error(reader, EINVAL, "xz data is corrupt or truncated (liblzma error %d)", static_cast<int>(status));
      return -1;
    }
  }
  return static_cast<la_ssize_t>(out_.size() - stream_.avail_out);
}

}  // namespace cudaenv
