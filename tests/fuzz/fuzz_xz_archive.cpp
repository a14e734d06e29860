// A whole .xz file, as a hostile mirror may vouch for it: the blocks read from its index
// (xz_blocks), each decoded by Lzma2Decoder, must stay in bounds and end in a value.
#include <cstdint>

#include "install/lzma2_decoder.h"
#include "install/xz_blocks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto blocks = cudaenv::plain_lzma2_blocks({data, size});
  if (!blocks || !*blocks) return 0;
  for (const cudaenv::XzBlock& block : **blocks) {
    if (block.dictionary_size > (64u << 20)) continue;  // a hostile header's 4 GiB ring is only address space
    cudaenv::Lzma2Decoder decoder(block.dictionary_size);
    decoder.start({data + block.data_offset, block.data_size});
    std::uint64_t decoded = 0;
    while (true) {
      auto piece = decoder.next();
      if (!piece || piece->empty() || (decoded += piece->size()) > block.decoded_size) break;
    }
  }
  return 0;
}
