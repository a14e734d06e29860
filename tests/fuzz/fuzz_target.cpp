// A target file (core/target.h), which a shared root or a copied folder may hold: parsing never
// crashes, and what it accepts is written back as a file that reads as the same target.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto target = cudaenv::parse_target("/r/targets/fuzz.toml", text);
  if (!target) return 0;
  std::string written = cudaenv::render_target(*target);
  auto again = cudaenv::parse_target("/r/targets/fuzz.toml", written);
  if (!again || again->driver.text != target->driver.text || again->cuda != target->cuda ||
      again->gpus.size() != target->gpus.size() || again->saved_from != target->saved_from) {
    std::abort();
  }
  for (size_t i = 0; i < target->gpus.size(); ++i) {
    if (again->gpus[i].name != target->gpus[i].name || again->gpus[i].capability != target->gpus[i].capability) std::abort();
  }
  (void)cudaenv::target_variables(*target, {}, false);
  return 0;
}
