// A wheel, as a hostile package index may vouch for it: read copied from memory and read as its
// download hands it over, batches lent in place (support/zip_differential.h), it must end in a
// value, and the same one both ways.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/zip_differential.h"

namespace {

struct ScratchFile {
  std::filesystem::path path = std::filesystem::temp_directory_path() / ("fuzz_zip-" + std::to_string(::getpid()) + ".part");
  ~ScratchFile() { std::filesystem::remove(path); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ScratchFile part;
  std::string_view archive(reinterpret_cast<const char*>(data), size);
  // How the download hands the bytes over follows from the bytes (FNV-1a), so a finding replays.
  std::uint64_t seed = 14695981039346656037ull;
  for (unsigned char byte : archive) seed = (seed ^ byte) * 1099511628211ull;
  auto comparison = cudaenv::testing::compare_lent_with_copied(archive, seed, part.path);
  if (comparison.difference) {
    std::fprintf(stderr, "read as it downloads, the wheel differs from its copy: %s\n", comparison.difference->c_str());
    std::abort();
  }
  return 0;
}
