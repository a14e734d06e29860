// An installed toolkit's cudaenv-install.json, which anything with write access to the root may
// have edited: reading never crashes, and the archives read are written back unchanged.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "install/receipt.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto receipt = cudaenv::parse_receipt(text, "/root/versions/13.2.1/cudaenv-install.json");
  if (!receipt) return 0;
  cudaenv::InstallRequest request{.label = "13.2.1", .profile = receipt->profile};
  cudaenv::InstallPlan plan{.label = "13.2.1", .files = receipt->archives};
  auto again = cudaenv::parse_receipt(cudaenv::render_receipt(request, plan, {}), "rendered");
  if (!again || again->profile != receipt->profile || again->archives != receipt->archives) std::abort();
  return 0;
}
