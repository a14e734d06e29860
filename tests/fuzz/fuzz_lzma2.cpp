// The LZMA2 data of an xz block, as a hostile mirror may vouch for it: the first byte picks the
// dictionary (4 KiB to 512 KiB), the rest is the data. Lzma2Decoder must stay in bounds and agree
// with liblzma's raw decoder: the same bytes where both succeed, and neither accepts what the
// other refuses.
#include <lzma.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "install/lzma2_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::uint32_t dictionary = 4096u << (data[0] % 8);
  std::span<const std::uint8_t> compressed(data + 1, size - 1);
  // Chunks decode to at most 2 MiB each: bound the work as libFuzzer's time limit would.
  constexpr size_t kMost = 16 << 20;
  std::vector<std::uint8_t> mine;
  cudaenv::Lzma2Decoder decoder(dictionary);
  decoder.start(compressed);
  bool accepted = true;
  while (true) {
    auto piece = decoder.next();
    if (!piece) {
      accepted = false;
      break;
    }
    if (piece->empty()) break;
    mine.insert(mine.end(), piece->begin(), piece->end());
    if (mine.size() > kMost) return 0;
  }
  lzma_options_lzma options{};
  options.dict_size = dictionary;
  lzma_filter filters[] = {{LZMA_FILTER_LZMA2, &options}, {LZMA_VLI_UNKNOWN, nullptr}};
  static std::vector<std::uint8_t> theirs(kMost + 1);  // made once: filling 16 MiB would be most of each run
  size_t in_pos = 0, out_pos = 0;
  lzma_ret status = lzma_raw_buffer_decode(filters, nullptr, compressed.data(), &in_pos, compressed.size(), theirs.data(),
                                           &out_pos, theirs.size());
  bool liblzma_accepts = status == LZMA_OK && in_pos == compressed.size();
  if (accepted != liblzma_accepts) std::abort();
  if (accepted && (out_pos != mine.size() || !std::equal(mine.begin(), mine.end(), theirs.begin()))) std::abort();
  return 0;
}
