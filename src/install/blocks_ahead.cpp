#include "install/blocks_ahead.h"

#include <algorithm>
#include <memory>
#include <string>

namespace cudaenv {

void start_block(std::unique_ptr<Lzma2Decoder>& decoder, std::span<const std::uint8_t> file, const XzBlock& block) {
  if (!decoder || decoder->dictionary_size() != block.dictionary_size) {
    decoder = std::make_unique<Lzma2Decoder>(block.dictionary_size);
  }
  decoder->start(file.subspan(block.data_offset, block.data_size));
}

Result<std::span<const std::uint8_t>> next_piece(Lzma2Decoder& decoder, const XzBlock& block, std::uint64_t& decoded) {
  CUDAENV_TRY_ASSIGN(std::span<const std::uint8_t> piece, decoder.next());
  decoded += piece.size();
  if (decoded > block.decoded_size || (piece.empty() && decoded != block.decoded_size)) {
    return make_error("xz data is corrupt: a block decodes to other than the " + std::to_string(block.decoded_size) +
                      " bytes its index gives");
  }
  return piece;
}

BlocksAhead::BlocksAhead(std::span<const std::uint8_t> file, std::vector<XzBlock> blocks, size_t most_ahead)
    : file_(file), blocks_(std::move(blocks)), most_ahead_(std::max<size_t>(1, most_ahead)) {
  helpable_ =
      std::all_of(blocks_.begin(), blocks_.end(), [](const XzBlock& block) { return block.decoded_size <= kMostBlockBytes; });
}

std::optional<Result<std::vector<std::uint8_t>>> BlocksAhead::take(size_t index) {
  std::unique_lock lock(mutex_);
  if (index >= next_) {
    next_ = index + 1;
    return std::nullopt;
  }
  auto found = ahead_.find(index);
  if (found == ahead_.end()) return std::nullopt;  // claimed by the reader itself before
  changed_.wait(lock, [&] { return found->second.has_value(); });
  Result<std::vector<std::uint8_t>> bytes = std::move(*found->second);
  ahead_.erase(found);
  changed_.notify_all();  // room for a helper to decode one more
  return bytes;
}

void BlocksAhead::help() {
  if (!helpable_) return;
  std::unique_lock lock(mutex_);
  ++helpers_;
  std::unique_ptr<Lzma2Decoder> decoder;
  while (true) {
    changed_.wait(lock, [&] { return stopped_ || next_ == blocks_.size() || ahead_.size() < most_ahead_; });
    if (stopped_ || next_ == blocks_.size()) break;
    size_t index = next_++;
    ahead_[index];
    lock.unlock();
    const XzBlock& block = blocks_[index];
    start_block(decoder, file_, block);
    Result<std::vector<std::uint8_t>> bytes = std::vector<std::uint8_t>();
    bytes->reserve(static_cast<size_t>(block.decoded_size));
    std::uint64_t decoded = 0;
    while (true) {
      Result<std::span<const std::uint8_t>> piece = next_piece(*decoder, block, decoded);
      if (!piece) {
        bytes = piece.take_error();
        break;
      }
      if (piece->empty()) break;
      bytes->insert(bytes->end(), piece->begin(), piece->end());
    }
    lock.lock();
    ahead_[index] = std::move(bytes);
    changed_.notify_all();
  }
  --helpers_;
  changed_.notify_all();
}

size_t BlocksAhead::claimed() {
  std::lock_guard lock(mutex_);
  return next_;
}

void BlocksAhead::stop() {
  std::unique_lock lock(mutex_);
  stopped_ = true;
  changed_.notify_all();
  changed_.wait(lock, [&] { return helpers_ == 0; });
}

}  // namespace cudaenv
