// A wheel, as a hostile package index may vouch for it: ZipReader reads its members, their data
// and its central directory as the extractor does, and must end in a value.
#include <cstdint>

#include "install/zip_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cudaenv::MemorySource source({data, size});
  cudaenv::ZipReader zip(source);
  std::uint64_t produced = 0;
  while (true) {
    auto member = zip.next();
    if (!member || !*member) break;
    while (true) {
      auto piece = zip.read_data();
      if (!piece || piece->empty()) break;
      produced += piece->size();
      if (produced > (64u << 20)) return 0;  // a bomb is the disk's to stop
    }
  }
  (void)zip.finish();
  return 0;
}
