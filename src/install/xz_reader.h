#pragma once
// Reading a .tar.xz for libarchive through liblzma's multi-threaded decoder: an archive that
// xz split into blocks (xz -T) decodes on several cores, and decoding runs ahead of the tar
// writer as `xz -d | tar -x` would. Single-block archives decode as fast as before.

#include <archive.h>
#include <lzma.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "util/result.h"

namespace cudaenv {

// True when `path` starts with the xz magic bytes.
bool is_xz_file(const std::filesystem::path& path);

class XzReader {
 public:
  XzReader() = default;
  ~XzReader();
  XzReader(const XzReader&) = delete;
  XzReader& operator=(const XzReader&) = delete;

  // Opens `path`, whose sha256 has been checked, and hands the decompressed stream to `reader`
  // (tar format expected), decoding on up to `threads` threads.
  Status open(archive* reader, const std::filesystem::path& path, unsigned threads);

 private:
  static la_ssize_t read(archive* reader, void* self, const void** buffer);
  la_ssize_t next(archive* reader, const void** buffer);

  int fd_ = -1;
  lzma_stream stream_ = LZMA_STREAM_INIT;
  std::vector<std::uint8_t> in_, out_;
  bool input_done_ = false;
  bool finished_ = false;
};

}  // namespace cudaenv
