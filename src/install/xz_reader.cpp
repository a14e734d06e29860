#include "install/xz_reader.h"

#include <fcntl.h>
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
  if (fd_ >= 0) ::close(fd_);
}

Status XzReader::open(archive* reader, const std::filesystem::path& path, unsigned threads) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return make_error("cannot open " + path.string() + ": " + std::strerror(errno));
  lzma_mt options{};
  options.threads = std::max(1u, threads);
  options.memlimit_threading = kThreadingMemoryLimit;
  options.memlimit_stop = UINT64_MAX;
  // The archive matched its manifest's sha256 before extraction: the xz check (CRC64 of the
  // content, about 1.5% of the decoding time) could only tell what that already proved.
  options.flags = LZMA_CONCATENATED | LZMA_IGNORE_CHECK;
  if (lzma_stream_decoder_mt(&stream_, &options) != LZMA_OK) {
    return make_error("cannot start the xz decoder for " + path.string());
  }
  // As xz's own buffers are small: they stay in the core's cache between liblzma and the tar
  // writer, and a decoder beside others keeps to its memory budget.
  in_.resize(64 << 10);
  out_.resize(64 << 10);
  if (archive_read_open(reader, this, nullptr, &XzReader::read, nullptr) != ARCHIVE_OK) {
    return make_error("cannot read " + path.string() + ": " + archive_error_string(reader));
  }
  return ok_status();
}

la_ssize_t XzReader::read(archive* reader, void* self, const void** buffer) {
  return static_cast<XzReader*>(self)->next(reader, buffer);
}

la_ssize_t XzReader::next(archive* reader, const void** buffer) {
  *buffer = out_.data();
  stream_.next_out = out_.data();
  stream_.avail_out = out_.size();
  while (!finished_ && stream_.avail_out == out_.size()) {
    if (stream_.avail_in == 0 && !input_done_) {
      ssize_t got = ::read(fd_, in_.data(), in_.size());
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        archive_set_error(reader, errno, "read error");
        return -1;
      }
      stream_.next_in = in_.data();
      stream_.avail_in = static_cast<size_t>(got);
      input_done_ = got == 0;
    }
    lzma_ret status = lzma_code(&stream_, input_done_ ? LZMA_FINISH : LZMA_RUN);
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
