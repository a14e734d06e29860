#pragma once
// Where `install`, `list-remote`, `update` and `mirror sync` fetch from, and for which platform:
// the source (redist or pypi), the --mirror / CUDAENV_MIRROR URL or the package index,
// --platform or this machine, and the releases that folder offers (src/mirror/release_discovery).

#include <optional>
#include <string>

#include "cli/session.h"
#include "core/install_source.h"
#include "install/catalog.h"
#include "mirror/release_discovery.h"
#include "util/result.h"

namespace CLI {
class App;
}

namespace cudaenv {

// --mirror, --source, --index-url and --skip-manifest-pin, which `install` and `lock` both take:
// declared once, so their help cannot drift apart.
void add_fetch_options(CLI::App& command, std::string& mirror, std::string& source, std::string& index_url,
                       bool& skip_manifest_pin);

// --no-progress, which `install` and `mirror sync` take.
void add_progress_option(CLI::App& command, bool& no_progress);

// The settings of fetching, each with where it came from (`cudaenv config` lists them).
// --mirror, else CUDAENV_MIRROR, else NVIDIA's folder.
Setting mirror_setting(const std::string& option, const Session& session, const ReleaseCatalog& releases);
// --platform, else this machine's redist platform (empty where NVIDIA publishes none).
Setting platform_setting(const std::string& option);
// --skip-manifest-pin, else CUDAENV_SKIP_MANIFEST_PIN: "1" skips the pin.
Setting skip_manifest_pin_setting(bool option, const Session& session);
// --profile, else cuda.toml's [cuda] profile, else the catalog's default.
Setting profile_setting(const std::string& option, const CudaToml* project, const ProfileCatalog& profiles);
// CUDAENV_TEXT_TIMEOUT, else 60: the seconds a text download may take, all its tries together
// (install/downloader.h reads the same variable).
Setting text_timeout_setting(const Session& session);
// --jobs, else kDefaultJobs (install/archive.h).
Setting jobs_setting(std::optional<int> option);

// The mirror setting's URL, ending in '/'; an error names where the bad value was set.
Result<std::string> redist_base_url(const std::string& option, const Session& session, const ReleaseCatalog& releases);

// What an install or a lock plans from: the shipped catalogs and the folder to fetch from.
struct RedistCatalogs {
  ReleaseCatalog releases;
  ProfileCatalog profiles;
  std::string base_url;
};
Result<RedistCatalogs> load_redist_catalogs(const std::string& mirror_option, const Session& session);

// The platform to fetch for; an error where this machine has none and none was given.
Result<std::string> host_platform(const std::string& option);
// --source, else CUDAENV_SOURCE, else the nearest cuda.toml's [cuda] source, else "redist".
Setting source_setting(const std::string& option, const Session& session, const CudaToml* project);
// Where toolkits come from; an error names where another value was set.
Result<InstallSource> install_source(const std::string& option, const Session& session);

// The package index of --source pypi, as pip would pick it: --index-url, else PIP_INDEX_URL,
// else the last of pip's configuration files that sets index-url, else PyPI.
Setting index_url_setting(const std::string& option, const Session& session);
// That index's URL, without a trailing slash; an error names where a bad one was set. pip's
// `cert` (PIP_CERT, or its files), where set, becomes the CA certificates of this process's
// transfers, as pip would check that index with it; a cert that is not a file is an error.
Result<std::string> package_index_url(const std::string& option, const Session& session);

bool skip_manifest_pin(bool option, const Session& session);

// --no-progress, else CUDAENV_NO_PROGRESS: "1" turns the progress bars off.
Setting no_progress_setting(bool option, const Session& session);
// Whether stderr gets redrawn progress bars; without them, one plain line per event.
bool progress_bars(bool no_progress_option, const Session& session);

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
