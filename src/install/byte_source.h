#pragma once
// Where an archive's bytes come from, front to back, read once: a file on disk, a download
// still arriving (ArrivingFile), or memory. The archive readers (tar through a Decompressor, zip
// through ZipReader) read from one and never seek, so an archive unpacks as it downloads.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Up to out.size() bytes, waiting until some are there; 0 once the archive has ended.
  virtual Result<size_t> read(std::span<std::uint8_t> out) = 0;
  // The next bytes where the source holds them, without copying or waiting: valid until the
  // next lend, give_back or read. Empty where it has none at hand.
  virtual std::span<const std::uint8_t> lend() { return {}; }
  // The last `count` bytes lent are unread again.
  virtual void give_back(size_t) {}
};

class FileSource : public ByteSource {
 public:
  static Result<FileSource> open(const std::filesystem::path& path);
  Result<size_t> read(std::span<std::uint8_t> out) override;

 private:
  FileSource(OpenFd fd, std::filesystem::path path) : fd_(std::move(fd)), path_(std::move(path)) {}
  OpenFd fd_;
  std::filesystem::path path_;
};

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::span<const std::uint8_t> data) : data_(data) {}
  Result<size_t> read(std::span<std::uint8_t> out) override;

 private:
  std::span<const std::uint8_t> data_;
};

// A window over a source, for parsers that look at bytes before they take them.
class SourceBuffer {
 public:
  // The buffer is not touched before it is used: an extraction waiting for its first bytes costs
  // no memory.
  SourceBuffer(ByteSource& source, size_t capacity) : source_(source), buffer_(new std::uint8_t[capacity]), capacity_(capacity) {}

  // The bytes buffered, at least `count` of them (at most the capacity) unless the source ends
  // first; reads only when fewer are buffered.
  Result<std::span<const std::uint8_t>> fill(size_t count);
  std::span<const std::uint8_t> buffered() const {
    if (lending_) return lent_.subspan(lent_pos_);
    return {buffer_.get() + start_, end_ - start_};
  }
  void consume(size_t count);
  // Gives back the last `count` bytes consumed, at most kKept: an inflater (ISA-L) reads a few
  // bytes past the end of its stream into its bit buffer, and they belong to what follows.
  static constexpr size_t kKept = 8;
  void unconsume(size_t count);
  // The source has no more bytes: what is buffered is all that is left.
  bool ended() const { return ended_; }
  // Where the first buffered byte lies in the archive.
  std::uint64_t offset() const { return offset_; }

 private:
  ByteSource& source_;
  std::unique_ptr<std::uint8_t[]> buffer_;
  size_t capacity_;
  size_t start_ = 0, end_ = 0;
  std::uint64_t offset_ = 0;
  bool ended_ = false;
  // Bytes the source lent (ByteSource::lend), read in place rather than copied to the buffer.
  bool lending_ = false;
  std::span<const std::uint8_t> lent_;
  size_t lent_pos_ = 0;
  void keep_consumed_lent();
};

}  // namespace cudaenv
