// A toolkit's crt/host_config.h, as a registered folder (`cudaenv add`) may hold it: reading its
// bounds never crashes, and a bound read is one a header can state.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "doctor/host_compiler.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  cudaenv::HostCompilerLimits limits = cudaenv::parse_host_config(text);
  if (limits.gcc_max && (*limits.gcc_max < 0 || *limits.gcc_max > 999)) std::abort();
  if (limits.clang_max && (*limits.clang_max < -1 || *limits.clang_max > 998)) std::abort();
  return 0;
}
