#pragma once
// Where `install`, `list-remote`, `update` and `mirror sync` fetch from, and for which platform:
// the source (redist or pypi), the --mirror / CUDAENV_MIRROR URL or the package index,
// --platform or this machine, and the releases that folder offers (src/mirror/release_discovery).

#include <optional>
#include <string>

#include "cli/session.h"
#include "install/catalog.h"
#include "mirror/release_discovery.h"
#include "util/result.h"

namespace cudaenv {

// --mirror, else CUDAENV_MIRROR, else NVIDIA's folder; ends in '/'.
Result<std::string> redist_base_url(const std::string& option, const Session& session, const ReleaseCatalog& releases);

// --platform, else this machine's redist platform.
Result<std::string> host_platform(const std::string& option);

// Where toolkits come from: --source, else CUDAENV_SOURCE, else the nearest cuda.toml's [cuda]
// source, else "redist"; "redist" or "pypi".
Result<std::string> install_source(const std::string& option, const Session& session);

// The package index of --source pypi, as pip would pick it: --index-url, else PIP_INDEX_URL,
// else the last of pip's configuration files that sets index-url, else PyPI.
Result<std::string> package_index_url(const std::string& option, const Session& session);

// --skip-manifest-pin or CUDAENV_SKIP_MANIFEST_PIN=1.
bool skip_manifest_pin(bool option, const Session& session);

// The releases of one redist folder, discovered at most once per command; a folder that cannot
// be read is said once on stderr.
class ReleaseSource {
 public:
  ReleaseSource(const Session& session, const ReleaseCatalog& shipped, std::string base_url)
      : session_(session), shipped_(shipped), base_url_(std::move(base_url)) {}

  const std::string& base_url() const { return base_url_; }
  const DiscoveredReleases& discovered(ListFreshness freshness = ListFreshness::cache_ok);
  // The full label a request names: "12.1" is the newest 12.1.z the folder offers. A full
  // label is taken as it is, without asking the folder.
  Result<std::string> resolve(const std::string& request);

 private:
  const Session& session_;
  const ReleaseCatalog& shipped_;
  std::string base_url_;
  std::optional<DiscoveredReleases> discovered_;
};

}  // namespace cudaenv
