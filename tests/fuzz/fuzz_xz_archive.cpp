// A whole .xz file, as a hostile mirror may vouch for it: the blocks read from its index
// (xz_blocks), each decoded as the extractor decodes it (start_block, next_piece), must stay in
// bounds and end in a value.
#include <cstdint>
#include <memory>

#include "install/blocks_ahead.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto blocks = cudaenv::plain_lzma2_blocks({data, size});
  if (!blocks || !*blocks) return 0;
  std::unique_ptr<cudaenv::Lzma2Decoder> decoder;
  for (const cudaenv::XzBlock& block : **blocks) {
    if (block.dictionary_size > (64u << 20)) continue;  // a hostile header's 4 GiB ring is only address space
    cudaenv::start_block(decoder, {data, size}, block);
    std::uint64_t decoded = 0;
    while (true) {
      auto piece = cudaenv::next_piece(*decoder, block, decoded);
      if (!piece || piece->empty()) break;
    }
  }
  return 0;
}
