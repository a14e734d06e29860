#pragma once
// Reading a .tar.xz for libarchive through liblzma, from the archive mapped into memory: with
// one thread the plain decoder; with more, the multi-threaded one, on which an archive that xz
// split into blocks (xz -T) decodes on several cores and runs ahead of the tar writer as
// `xz -d | tar -x` would.

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
  // (tar format expected), decoding on up to `threads` threads (see ExtractionQueue).
  Status open(archive* reader, const std::filesystem::path& path, unsigned threads);

 private:
  static la_ssize_t read(archive* reader, void* self, const void** buffer);
  la_ssize_t next(archive* reader, const void** buffer);
  void release_read_input();

  void* mapped_ = nullptr;  // the whole archive
  size_t mapped_size_ = 0;
  size_t released_ = 0;  // the first bytes of the mapping, given back by release_read_input
  lzma_stream stream_ = LZMA_STREAM_INIT;
  std::vector<std::uint8_t> out_;
  bool finished_ = false;
};

}  // namespace cudaenv
