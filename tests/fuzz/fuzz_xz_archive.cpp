// A whole compressed archive (xz, gzip or none, by its magic bytes), as a hostile mirror may vouch
// for it: the Decompressor the extractor reads it with, fed in small pieces as a download
// arrives, must end in a value (its end or an error), and never loop or run out of bounds.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "install/decompressor.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> in(data, size);
  auto decoder = cudaenv::Decompressor::make(cudaenv::Decompressor::format_of(in));
  if (!decoder) return 0;
  std::vector<std::uint8_t> out(4096);
  size_t decoded = 0, stalls = 0;
  while (true) {
    std::span<const std::uint8_t> piece = in.first(std::min<size_t>(in.size(), 1000));
    bool last = piece.size() == in.size();
    auto step = (*decoder)->decode(piece, out, last);
    if (!step || step->end) return 0;
    in = in.subspan(step->read);
    decoded += step->written;
    // A bomb is not the decoder's to stop (the disk is): bound the work as the time limit would.
    if (decoded > (64u << 20)) return 0;
    stalls = step->read == 0 && step->written == 0 ? stalls + 1 : 0;
    if (stalls > 3 && last) __builtin_trap();  // at the file's end, a decoder must finish or fail
    if (stalls > 3 && !last) return 0;         // it needs more than a piece at once (a header)
  }
}
