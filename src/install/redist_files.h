#pragma once
// The redist source's part of an install: fetch redistrib_<label>.json, check it against
// cudaenv's pinned sha256 and plan one archive per component (install/plan.h). `mirror sync`
// and cuDNN's manifests share the fetch, trusting a manifest only as far as its pin.

#include <string>

#include "install/catalog.h"
#include "install/downloader.h"
#include "install/plan.h"
#include "install/progress.h"

namespace cudaenv {

// base_url ends in '/'.
std::string manifest_url(const std::string& base_url, const std::string& label);

// The manifest's bytes as served. A manifest that differs from its pin is refused unless
// `skip_pin`; one cudaenv has no pin for is accepted with a note.
Result<std::string> fetch_checked_manifest(const ReleaseCatalog& releases, const std::string& base_url, const std::string& label,
                                           bool skip_pin, const DownloadOptions& options, ProgressReporter& progress);

struct RedistFolder {
  std::string base_url;  // ends in '/'; http(s):// or file://
  bool skip_manifest_pin = false;
  FetchSettings fetch;
};

PlanFiles plan_redist_files(const ReleaseCatalog& releases, const ProfileCatalog& profiles, RedistFolder folder,
                            ProgressReporter& progress);

}  // namespace cudaenv
