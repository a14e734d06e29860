// A redist folder's listing (NVIDIA's index page, nginx, Apache, anything a server answers) and
// the release-list cache cudaenv keeps of it.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "mirror/release_discovery.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const std::string& label : cudaenv::parse_redist_listing(text)) {
    // Every label found must be one the file-name rule accepts.
    if (!cudaenv::label_from_file_name("redistrib_" + label + ".json")) std::abort();
  }
  if (auto cache = cudaenv::parse_release_cache(text)) {
    auto again = cudaenv::parse_release_cache(cudaenv::render_release_cache(*cache));
    if (!again || again->releases.size() != cache->releases.size()) std::abort();
  }
  return 0;
}
