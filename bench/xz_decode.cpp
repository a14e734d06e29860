// bench/xz_decode FILE.xz: decodes the archive as `cudaenv install` does (its own LZMA2 decoder,
// the blocks read from the xz index, one decoder reused while the dictionary size allows) and throws the output away, as `xz -dc --ignore-check
// >/dev/null` does with liblzma's; bench/install.sh times the two side by side.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "install/blocks_ahead.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: xz_decode FILE.xz\n");
    return 2;
  }
  int fd = ::open(argv[1], O_RDONLY | O_CLOEXEC);
  struct stat info {};
  if (fd < 0 || ::fstat(fd, &info) != 0 || info.st_size == 0) {
    std::fprintf(stderr, "xz_decode: cannot read %s\n", argv[1]);
    return 1;
  }
  size_t size = static_cast<size_t>(info.st_size);
  void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (mapped == MAP_FAILED) {
    std::fprintf(stderr, "xz_decode: cannot map %s\n", argv[1]);
    return 1;
  }
  std::span<const std::uint8_t> file(static_cast<const std::uint8_t*>(mapped), size);
  auto blocks = cudaenv::plain_lzma2_blocks(file);
  if (!blocks || !*blocks) {
    std::fprintf(stderr, "xz_decode: %s: %s\n", argv[1], blocks ? "has blocks that are not LZMA2 alone" : blocks.error().message.c_str());
    return 1;
  }
  std::uint64_t total = 0;
  std::unique_ptr<cudaenv::Lzma2Decoder> decoder;
  for (const cudaenv::XzBlock& block : **blocks) {
    cudaenv::start_block(decoder, file, block);
    std::uint64_t decoded = 0;
    while (true) {
      auto piece = cudaenv::next_piece(*decoder, block, decoded);
      if (!piece) {
        std::fprintf(stderr, "xz_decode: %s: %s\n", argv[1], piece.error().message.c_str());
        return 1;
      }
      if (piece->empty()) break;
      total += piece->size();
    }
  }
  std::printf("%llu\n", static_cast<unsigned long long>(total));
  return 0;
}
