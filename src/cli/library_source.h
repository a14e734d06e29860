#pragma once
// Where a toolkit's libraries come from: the effects (folder listings, manifests) behind the
// pure choices of install/library.h.

#include <string>

#include "core/layout.h"
#include "install/library.h"
#include "install/progress.h"
#include "util/data_dir.h"
#include "util/environment.h"

namespace cudaenv {

struct LibraryContext {
  Layout layout;
  EnvMap env;
  DataFiles data;
  std::string cuda_base;  // the toolkit's redist folder, ending in '/'
  std::string platform;
  int cuda_major = 0;
  bool skip_manifest_pin = false;
};

// One library for a toolkit: its folder's releases, the manifest (checked against its pin),
// and the archive for the toolkit's major.
Result<PlannedLibrary> resolve_library(const LibrarySpec& spec, const LibraryContext& context, ProgressReporter& progress);

}  // namespace cudaenv
