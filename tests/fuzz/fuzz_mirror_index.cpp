// cudaenv-mirror.json, as a shared mirror folder may hold it: an index that parses renders
// to one that parses back to the same text.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "mirror/release_discovery.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto index = cudaenv::parse_mirror_index(text, "/mirror/cudaenv-mirror.json");
  if (!index) return 0;
  std::string rendered = cudaenv::render_mirror_index(*index);
  auto again = cudaenv::parse_mirror_index(rendered, "rendered");
  if (!again || cudaenv::render_mirror_index(*again) != rendered) std::abort();
  for (const auto& release : index->releases) (void)index->find(release.label);
  return 0;
}
