// __CUDAENV_STATE, which any process can set in the environment: parsing never crashes, and
// what the hook writes back reads back the same.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "shell/hook_state.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string formatted = cudaenv::format_state(cudaenv::parse_state(text));
  if (cudaenv::format_state(cudaenv::parse_state(formatted)) != formatted) std::abort();
  return 0;
}
