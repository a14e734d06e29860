#include "install/decompressor.h"

#include <isa-l/igzip_lib.h>
#include <lzma.h>

#include <algorithm>
#include <cstring>

namespace cudaenv {

namespace {

// What an xz decoder may allocate: its dictionary, which the archive's header sets. xz -9 needs
// 65 MiB; more is no archive NVIDIA makes, and a header that asks for gigabytes is refused
// instead of growing the process as the data decodes.
constexpr std::uint64_t kXzMemoryLimit = 256ull << 20;

Error xz_error(lzma_ret status) {
  switch (status) {
    case LZMA_DATA_ERROR:
      return make_error(
          "its xz data is corrupt: an integrity check (CRC32, CRC64 or SHA-256), a block's size or the index "
          "does not match what the stream holds");
    case LZMA_BUF_ERROR: return make_error("its xz data ends before the stream does: the file is cut short");
    case LZMA_FORMAT_ERROR: return make_error("it is not xz data");
    case LZMA_OPTIONS_ERROR: return make_error("its xz stream uses options liblzma cannot decode");
    case LZMA_UNSUPPORTED_CHECK:
      return make_error("its xz stream declares an integrity check liblzma cannot verify, so it is not decoded");
    case LZMA_MEMLIMIT_ERROR:
      return make_error("its xz stream needs more than " + std::to_string(kXzMemoryLimit >> 20) +
                        " MiB to decode (xz -9 needs 65 MiB): refused");
    case LZMA_MEM_ERROR: return make_error("there is not enough memory to decode its xz stream");
    default: return make_error("liblzma fails on its xz stream (error " + std::to_string(static_cast<int>(status)) + ")");
  }
}

// One stream at a time, as `xz -d` reads a file: after each, stream padding (zeros, a multiple of
// four) and then the file's end or another stream; anything else is refused. No
// LZMA_IGNORE_CHECK: each block's check is verified, and liblzma matches the index against the
// blocks.
class XzDecompressor : public Decompressor {
 public:
  ~XzDecompressor() override { lzma_end(&stream_); }

  Status start() {
    lzma_end(&stream_);
    stream_ = LZMA_STREAM_INIT;
    lzma_ret started = lzma_stream_decoder(&stream_, kXzMemoryLimit, LZMA_TELL_UNSUPPORTED_CHECK);
    if (started != LZMA_OK) return xz_error(started);
    return ok_status();
  }

  Result<Step> decode(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, bool in_is_last) override {
    if (between_streams_) return after_stream(in, in_is_last);
    stream_.next_in = in.data();
    stream_.avail_in = in.size();
    stream_.next_out = out.data();
    stream_.avail_out = out.size();
    lzma_ret status = lzma_code(&stream_, in_is_last ? LZMA_FINISH : LZMA_RUN);
    Step step{in.size() - stream_.avail_in, out.size() - stream_.avail_out, false};
    if (status == LZMA_STREAM_END) {
      between_streams_ = true;
      padding_ = 0;
      step.end = in_is_last && step.read == in.size();
      return step;
    }
    if (status != LZMA_OK) return xz_error(status);
    return step;
  }

 private:
  Result<Step> after_stream(std::span<const std::uint8_t> in, bool in_is_last) {
    size_t zeros = 0;
    while (zeros < in.size() && in[zeros] == 0) ++zeros;
    padding_ += zeros;
    bool padded = padding_ % 4 == 0;
    if (zeros == in.size()) {
      if (in_is_last && !padded) return make_error("its xz stream padding is not a multiple of four bytes");
      return Step{zeros, 0, in_is_last};
    }
    if (!padded) return make_error("its xz stream padding is not a multiple of four bytes");
    std::span<const std::uint8_t> rest = in.subspan(zeros);
    if (rest.size() < 6 && !in_is_last) return Step{zeros, 0, false};  // too few bytes to tell yet
    if (format_of(rest) != Format::xz) {
      return make_error("it has data after its xz stream that is no xz stream");
    }
    between_streams_ = false;
    CUDAENV_TRY(start());
    return Step{zeros, 0, false};
  }

  lzma_stream stream_ = LZMA_STREAM_INIT;
  bool between_streams_ = false;
  std::uint64_t padding_ = 0;
};

// ISA-L checks each gzip member's CRC-32 and length (ISAL_GZIP: the header read, the trailer
// verified). Members may follow each other (gzip -d reads them so); anything else after one is an
// error. The one inflate of the install, as for wheels (zip_reader.cpp).
class GzipDecompressor : public Decompressor {
 public:
  GzipDecompressor() { restart(); }

  Result<Step> decode(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, bool in_is_last) override {
    if (between_members_) {
      if (in.empty()) return Step{0, 0, in_is_last};
      if (in[0] != 0x1f) return make_error("it has data after its gzip stream");
      restart();
    }
    state_->next_in = const_cast<std::uint8_t*>(in.data());
    state_->avail_in = static_cast<std::uint32_t>(std::min<size_t>(in.size(), UINT32_MAX));
    state_->next_out = out.data();
    state_->avail_out = static_cast<std::uint32_t>(std::min<size_t>(out.size(), UINT32_MAX));
    size_t offered_in = state_->avail_in, offered_out = state_->avail_out;
    int status = isal_inflate(state_.get());
    Step step{offered_in - state_->avail_in, offered_out - state_->avail_out, false};
    if (status == ISAL_INCORRECT_CHECKSUM)
      return make_error("its gzip data fails its CRC-32 or length check: the data is corrupt");
    if (status < 0) return make_error("its gzip data is corrupt (ISA-L error " + std::to_string(status) + ")");
    if (state_->block_state == ISAL_BLOCK_FINISH) {
      between_members_ = true;
      step.unread = state_->read_in_length / 8;
      step.end = in_is_last && step.read == in.size() && step.unread == 0;
      return step;
    }
    if (step.read == 0 && step.written == 0 && in_is_last && in.empty())
      return make_error("its gzip data ends before the stream does: the file is cut short");
    return step;
  }

 private:
  void restart() {
    isal_inflate_init(state_.get());
    state_->crc_flag = ISAL_GZIP;
    between_members_ = false;
  }

  std::unique_ptr<inflate_state> state_ = std::make_unique<inflate_state>();
  bool between_members_ = false;
};

class PlainTar : public Decompressor {
 public:
  Result<Step> decode(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, bool in_is_last) override {
    size_t size = std::min(in.size(), out.size());
    if (size > 0) std::memcpy(out.data(), in.data(), size);
    return Step{size, size, in_is_last && size == in.size()};
  }
};

}  // namespace

Decompressor::Format Decompressor::format_of(std::span<const std::uint8_t> head) {
  static const std::uint8_t xz_magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
  if (head.size() >= sizeof xz_magic && std::equal(std::begin(xz_magic), std::end(xz_magic), head.begin())) return Format::xz;
  if (head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b) return Format::gzip;
  return Format::none;
}

Result<std::unique_ptr<Decompressor>> Decompressor::make(Format format) {
  switch (format) {
    case Format::xz: {
      auto decoder = std::make_unique<XzDecompressor>();
      CUDAENV_TRY(decoder->start());
      return std::unique_ptr<Decompressor>(std::move(decoder));
    }
    case Format::gzip: return std::unique_ptr<Decompressor>(std::make_unique<GzipDecompressor>());
    case Format::none: break;
  }
  return std::unique_ptr<Decompressor>(std::make_unique<PlainTar>());
}

}  // namespace cudaenv
