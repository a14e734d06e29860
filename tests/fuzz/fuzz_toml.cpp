// cuda.toml, as a cloned repository may ship it: parsing never crashes, and `cudaenv use`'s
// edit of a file that parsed yields a file that parses, with the new version.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/cuda_toml.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const cudaenv::fs::path path = "/project/cuda.toml";
  auto parsed = cudaenv::parse_cuda_toml(path, text);
  auto edited = cudaenv::set_cuda_toml_key(path, text, "version", "12.4");
  if (parsed && edited) {
    auto reparsed = cudaenv::parse_cuda_toml(path, *edited);
    if (!reparsed || reparsed->version != "12.4") std::abort();
  }
  return 0;
}
