#pragma once
// Fetching redistrib_<label>.json and checking it against cudaenv's pinned sha256: shared by
// `install` and `mirror sync`, which both trust a manifest only as far as its pin.

#include <string>

#include "install/catalog.h"
#include "install/downloader.h"
#include "install/progress.h"
#include "util/result.h"

namespace cudaenv {

// base_url ends in '/'.
std::string manifest_url(const std::string& base_url, const std::string& label);

// The manifest's bytes as served. A manifest that differs from its pin is refused unless
// `skip_pin`; one cudaenv has no pin for is accepted with a note.
Result<std::string> fetch_checked_manifest(const ReleaseCatalog& releases, const std::string& base_url, const std::string& label,
                                           bool skip_pin, const DownloadOptions& options, ProgressReporter& progress);

}  // namespace cudaenv
