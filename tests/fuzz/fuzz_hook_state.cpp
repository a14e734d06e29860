// __CUDAENV_STATE, which any process can set in the environment: parsing never crashes (the
// current format and an older cudaenv's), and what the hook owned (its entries in PATH-like
// lists, the variables it set) reads back the same after it is written again, so leaving a
// project removes exactly that.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/hook_state.h"

namespace {

bool same_owned(const cudaenv::HookState& a, const cudaenv::HookState& b) {
  if (a.announced != b.announced || a.notice_key != b.notice_key || a.entries.size() != b.entries.size() ||
      a.values.size() != b.values.size()) {
    return false;
  }
  for (size_t i = 0; i < a.entries.size(); ++i) {
    if (a.entries[i].variable != b.entries[i].variable || a.entries[i].entry != b.entries[i].entry) return false;
  }
  for (size_t i = 0; i < a.values.size(); ++i) {
    const auto &x = a.values[i], &y = b.values[i];
    if (x.variable != y.variable || x.value != y.value || x.previous != y.previous) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  cudaenv::HookState state = cudaenv::parse_state(text);
  cudaenv::HookState again = cudaenv::parse_state(cudaenv::format_state(state));
  if (!same_owned(state, again)) std::abort();
  return 0;
}
