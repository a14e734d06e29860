#pragma once
// The blocks of an xz file, from its index: where each block's compressed data lies, what it
// decodes to, and with what dictionary. liblzma checks the stream headers, footers, indexes and
// block headers (their CRC32s); decoding the blocks is Lzma2Decoder's.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "util/result.h"

namespace cudaenv {

struct XzBlock {
  size_t data_offset = 0;  // its LZMA2 data, right after the block header
  size_t data_size = 0;
  std::uint64_t decoded_size = 0;
  std::uint32_t dictionary_size = 0;
};

// The blocks of `file`, an xz file of one or more streams, in order, when the only filter of
// each is LZMA2 (as `xz` writes by default); nullopt when any block has another filter chain
// (a BCJ filter, say), which liblzma's own decoder then reads. An error when the container is
// corrupt or cut short.
Result<std::optional<std::vector<XzBlock>>> plain_lzma2_blocks(std::span<const std::uint8_t> file);

}  // namespace cudaenv
