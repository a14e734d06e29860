// The shim's lean cuda.toml reader (lean/lean_toml.h) on untrusted bytes: it never crashes or
// reads out of bounds, and whatever it takes, the full reader takes too, to the same version
// and arch list (the lean reader may only be unsure, never differ).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/cuda_toml.h"
#include "lean/lean_toml.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A buffer of exactly `size` bytes, so ASan sees any read past its end.
  std::vector<char> bytes(data, data + size);
  lean_cuda_toml lean;
  if (!lean_read_cuda_toml(bytes.data(), bytes.size(), &lean)) return 0;
  auto full = cudaenv::parse_cuda_toml("/project/cuda.toml", std::string_view(bytes.data(), bytes.size()));
  if (!full || full->version != std::string(lean.version.text, lean.version.size)) std::abort();
  if (full->arch.size() != lean.arch_count) std::abort();
  for (size_t i = 0; i < lean.arch_count; ++i) {
    if (full->arch[i] != std::string(lean.arch[i].text, lean.arch[i].size)) std::abort();
  }
  return 0;
}
