// NVIDIA's redistrib_<label>.json, as any mirror may serve it.
#include <cstdint>
#include <string_view>

#include "install/redist_manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto manifest = cudaenv::parse_redist_manifest(text, "https://mirror.test/redistrib_12.4.0.json");
  if (manifest) {
    for (const auto& component : manifest->components) (void)manifest->find(component.key);
  }
  return 0;
}
