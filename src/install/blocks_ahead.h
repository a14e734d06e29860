#pragma once
// The blocks of an xz archive (which decode independently of each other) shared between the
// thread extracting it, which decodes them in order straight into its tar reader, and workers
// with nothing else left to do, which decode later blocks ahead of it into memory. The last
// archives of an install then decode on every core instead of one.

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "install/lzma2_decoder.h"
#include "install/xz_blocks.h"
#include "util/result.h"

namespace cudaenv {

// Starts `decoder` on `block` of `file`: the one it has, unless the block needs another
// dictionary size (then a new one).
void start_block(std::unique_ptr<Lzma2Decoder>& decoder, std::span<const std::uint8_t> file, const XzBlock& block);

// The next decoded piece of `block` (empty at its end), checked against the size its index
// gives; `decoded` counts what the block gave so far.
Result<std::span<const std::uint8_t>> next_piece(Lzma2Decoder& decoder, const XzBlock& block, std::uint64_t& decoded);

class BlocksAhead {
 public:
  // `file` (the mapped archive) stays mapped until stop() returns. At most `most_ahead` blocks
  // wait decoded in memory at once; helpers decode nothing when a block decodes to more than
  // kMostBlockBytes (the reader decodes them all then).
  BlocksAhead(std::span<const std::uint8_t> file, std::vector<XzBlock> blocks, size_t most_ahead);

  static constexpr std::uint64_t kMostBlockBytes = 32 << 20;

  // For the reader, at block `index` (in order from 0): nullopt when the block is the reader's
  // to decode (now claimed); else the bytes a helper decoded it to (waiting for them), or the
  // helper's error.
  std::optional<Result<std::vector<std::uint8_t>>> take(size_t index);

  // For a helper: decodes the first unclaimed block, and the next, while blocks are left and
  // fewer than `most_ahead` wait; returns when none is left or the reader stopped.
  void help();

  // Blocks claimed so far, by the reader and the helpers.
  size_t claimed();

  // The reader is done, or failed: helpers finish the block they decode and take no more;
  // returns when none is left running.
  void stop();

 private:
  std::span<const std::uint8_t> file_;
  std::vector<XzBlock> blocks_;
  size_t most_ahead_;
  bool helpable_;
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t next_ = 0;  // the first block nobody claimed
  // Blocks a helper claimed: nullopt while it decodes them.
  std::map<size_t, std::optional<Result<std::vector<std::uint8_t>>>> ahead_;
  size_t helpers_ = 0;
  bool stopped_ = false;
};

}  // namespace cudaenv
