#pragma once
// manifests/pytorch.toml from the source tree, parsed once for the torch tests.

#include <catch2/catch.hpp>

#include "torch/matrix.h"
#include "util/file_system.h"

namespace cudaenv::testing {

inline const TorchMatrix& shipped_torch_matrix() {
  static const TorchMatrix matrix = [] {
    std::filesystem::path path = std::filesystem::path(CUDAENV_SOURCE_DIR) / "manifests" / kTorchMatrixFileName;
    auto parsed = parse_torch_matrix(path, RealFileSystem().read_file(path, kLargeFileLimit).value());
    INFO((parsed ? "" : parsed.error().message));
    REQUIRE(parsed);
    return parsed.value();
  }();
  return matrix;
}

}  // namespace cudaenv::testing
