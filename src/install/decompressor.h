#pragma once
// The compression around a tar archive, undone as its bytes come in: xz by liblzma, gzip by ISA-L,
// each verifying every integrity check its format has; a plain tar passes through. The input is
// untrusted (a mirror can vouch for any bytes): what follows the compressed stream, an index that
// disagrees with the blocks, a failed check or a file cut short is an error.

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "util/result.h"

namespace cudaenv {

class Decompressor {
 public:
  enum class Format { xz, gzip, none };
  // By the magic bytes at the start of the file: at least 6 of them, fewer only for a shorter file.
  static Format format_of(std::span<const std::uint8_t> head);
  // One single-threaded decoder: an install decodes its archives side by side, one per core
  // (docs/install.md, "Threaded decoding or one decoder per core").
  static Result<std::unique_ptr<Decompressor>> make(Format format);

  virtual ~Decompressor() = default;

  struct Step {
    size_t read = 0;     // bytes of `in` taken
    size_t written = 0;  // bytes of `out` filled
    bool end = false;    // the stream ended with the file: nothing more will come out
    // Bytes taken, in this call or before, that follow the stream's end (ISA-L reads ahead): the
    // caller gives them back (SourceBuffer::unconsume), at most SourceBuffer::kKept.
    size_t unread = 0;
  };
  // Decodes from `in` into `out`; `in_is_last` says no byte follows `in` in the file. Once the
  // compressed stream has ended (and, for xz, its index and footer matched every block and its
  // check every block's data) only the file's end may follow: more data is an error, as is a
  // file that ends before the stream does.
  virtual Result<Step> decode(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, bool in_is_last) = 0;
};

}  // namespace cudaenv
