#pragma once
// manifests/extensions.toml from the source tree, parsed once for the extension tests.

#include <catch2/catch.hpp>

#include "extensions/catalog.h"
#include "util/file_system.h"

namespace cudaenv::testing {

inline const ExtensionCatalog& shipped_extension_catalog() {
  static const ExtensionCatalog catalog = [] {
    std::filesystem::path path = std::filesystem::path(CUDAENV_SOURCE_DIR) / "manifests" / kExtensionCatalogFileName;
    auto parsed = parse_extension_catalog(path, RealFileSystem().read_file(path, kLargeFileLimit).value());
    INFO((parsed ? "" : parsed.error().message));
    REQUIRE(parsed);
    return parsed.value();
  }();
  return catalog;
}

}  // namespace cudaenv::testing
