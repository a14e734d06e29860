#pragma once
// Decoding the LZMA2 data of one xz block, for extraction. This decoder takes 0.86x the CPU time
// of liblzma 5.4's, which xz runs, on bench/install.sh's archives (README, "Figures"): it decodes
// whole chunks, literals without a branch on each bit, into a ring that holds the dictionary,
// and hands out the decoded bytes where they lie (liblzma copies them out once more).
//
// Pure: memory in, memory out. The input is untrusted (a hostile mirror can vouch for any
// bytes): every read, write and distance is bounded, and corrupt data ends in an error.

#include <cstdint>
#include <memory>
#include <span>

#include "util/result.h"

namespace cudaenv {

class Lzma2Decoder {
 public:
  // `dictionary_size` as the block's LZMA2 filter properties give it.
  explicit Lzma2Decoder(std::uint32_t dictionary_size);
  ~Lzma2Decoder();
  Lzma2Decoder(const Lzma2Decoder&) = delete;
  Lzma2Decoder& operator=(const Lzma2Decoder&) = delete;

  // The dictionary this decoder was made for (a block with another needs another decoder).
  std::uint32_t dictionary_size() const { return dictionary_size_; }

  // Starts on the LZMA2 data of one block: exactly its compressed bytes, ending in the LZMA2
  // end marker. `data` stays readable until the block is decoded.
  void start(std::span<const std::uint8_t> data);

  // The next decoded bytes, valid until the next call; empty at the end of the data, which
  // must then have been consumed to its last byte (else an error). An error when the data is
  // corrupt, truncated or too long, or the dictionary cannot be allocated.
  Result<std::span<const std::uint8_t>> next();

  // Compressed bytes read so far.
  size_t consumed() const { return read_; }

 private:
  struct Model;
  Status read_chunk();
  Status decode_lzma_chunk(size_t unpacked, size_t packed);
  Status copy_stored_chunk(size_t size);
  void reset_state();

  std::uint32_t dictionary_size_;
  size_t window_;     // the distances allowed: the dictionary size, rounded as liblzma rounds it
  size_t ring_size_;  // more than the window, and at least a chunk
  std::unique_ptr<std::uint8_t[]> ring_;
  std::unique_ptr<Model> model_;
  std::span<const std::uint8_t> data_;
  size_t read_ = 0;
  size_t pos_ = 0;             // where the next decoded byte goes in the ring
  std::uint64_t decoded_ = 0;  // bytes since the last dictionary reset
  size_t pending_start_ = 0;   // decoded bytes not handed out yet
  size_t pending_ = 0;
  bool need_dictionary_reset_ = true;
  bool need_properties_ = true;
  bool ended_ = false;
};

}  // namespace cudaenv
