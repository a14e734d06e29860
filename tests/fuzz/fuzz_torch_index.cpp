// A PyTorch index page or a wheel's core metadata, as a proxy or an attacker may serve them:
// parsing never crashes, and every release found is one the page's wheel names name.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "torch/discovery.h"
#include "torch/index_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto files = cudaenv::parse_project_page(text);
  for (const char* package : {"torch", "torchvision"}) {
    for (const auto& release : cudaenv::releases_on_page(files, package)) {
      if (release.version.parts.size() != 3) std::abort();
    }
  }
  for (const auto& file : files) {
    std::string url = cudaenv::resolve_url("http://h/whl/torch/", file.url);
    // What a remote page may lead to is remote: a file:// link is never followed.
    if (cudaenv::may_follow("http://h/whl/torch/", url) && url.rfind("file:", 0) == 0) std::abort();
  }
  (void)cudaenv::required_torch(text);
  if (auto snapshot = cudaenv::parse_snapshot(text)) {
    if (!cudaenv::parse_snapshot(cudaenv::render_snapshot(*snapshot))) std::abort();
  }
  return 0;
}
