#pragma once
// Where `install`, `list-remote` and `mirror sync` fetch from, and for which platform: the
// --mirror / CUDAENV_MIRROR URL, --platform or this machine, and the release a request names.

#include <string>

#include "cli/session.h"
#include "install/catalog.h"
#include "util/result.h"

namespace cudaenv {

// --mirror, else CUDAENV_MIRROR, else NVIDIA's folder; ends in '/'.
Result<std::string> redist_base_url(const std::string& option, const Session& session, const ReleaseCatalog& releases);

// --platform, else this machine's redist platform.
Result<std::string> host_platform(const std::string& option);

// --skip-manifest-pin or CUDAENV_SKIP_MANIFEST_PIN=1.
bool skip_manifest_pin(bool option, const Session& session);

// The full label a request names: "12.1" is the newest 12.1.z the mirror's index holds when
// the mirror has one, else the newest cudaenv knows.
Result<std::string> resolve_release(const std::string& request, const std::string& base_url,
                                    const ReleaseCatalog& releases);

}  // namespace cudaenv
