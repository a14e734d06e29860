// extensions.toml as CUDAENV_MANIFESTS_DIR may point at another one, and the wheel cache as any
// process under CUDAENV_ROOT may leave it: parsing never crashes, every wheel URL the catalog
// yields stays under its pattern's scheme, and the cache survives its own rendering.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "extensions/advice.h"
#include "extensions/wheel_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto catalog = cudaenv::parse_extension_catalog("/m/extensions.toml", text)) {
    cudaenv::ExtensionTarget target;
    target.torch = *cudaenv::parse_version("2.15.0");
    target.cuda = *cudaenv::parse_version("13.0");
    target.python_tag = "cp312";
    target.platform = "linux_x86_64";
    for (const auto& entry : catalog->packages) {
      auto advice = cudaenv::advise(entry, {entry.name, std::nullopt}, target, {});
      if (advice.kind == cudaenv::AdviceKind::wheel) std::abort();  // nothing was answered "present"
      if (auto url = cudaenv::fitting_wheel_url(entry, "1.0", target); url && url->rfind("http", 0) != 0) std::abort();
    }
  }
  cudaenv::WheelCache cache = cudaenv::parse_wheel_cache(text);
  if (cudaenv::parse_wheel_cache(cudaenv::render_wheel_cache(cache)).size() != cache.size()) std::abort();
  return 0;
}
