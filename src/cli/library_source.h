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
  std::string index_url;  // the package index NCCL's wheels come from (as pip's), without a trailing '/'
  std::string platform;
  int cuda_major = 0;
  bool skip_manifest_pin = false;
};

// One library for a toolkit: cuDNN from its redist folder (the releases, the manifest checked
// against its pin, the archive for the toolkit's major); NCCL from the package index (the
// wheel of nvidia-nccl-cu<major>).
Result<PlannedLibrary> resolve_library(const LibrarySpec& spec, const LibraryContext& context, ProgressReporter& progress);

}  // namespace cudaenv
