#pragma once
// Where `install`, `list-remote`, `update`, `lock` and `mirror sync` fetch from, and for which
// platform: the source (redist or pypi), the --mirror / CUDAENV_MIRROR URL or the package index,
// --platform or this machine, and the releases that folder offers (release_discovery.h). The
// commands resolve these once from their options and the environment and pass the values down.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/data_dir.h"
#include "core/install_source.h"
#include "core/settings_table.h"
#include "install/catalog.h"
#include "install/fetch_settings.h"
#include "mirror/release_discovery.h"
#include "util/environment.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

// The mirror setting's URL, ending in '/'; an error names where the bad value was set.
Result<std::string> redist_base_url(const Setting& mirror);

// What an install or a lock plans from: the shipped catalogs and the folder to fetch from.
struct RedistCatalogs {
  ReleaseCatalog releases;
  ProfileCatalog profiles;
  std::string base_url;
};
Result<RedistCatalogs> load_redist_catalogs(const std::string& mirror_option, const DataFiles& data, const EnvMap& env);

// This machine's redist platform; empty where NVIDIA publishes none.
std::string host_redist_platform();
// The platform to fetch for (--platform, else this machine's); an error where this machine has
// none and none was given.
Result<std::string> host_platform(const std::string& option);
// Where toolkits come from (source_setting: the option, CUDAENV_SOURCE, the nearest cuda.toml
// from `cwd`); an error names where another value was set.
Result<InstallSource> install_source(const std::string& option, const EnvMap& env, const FileSystemView& fs,
                                     const std::filesystem::path& cwd);

// The package index of --source pypi, as pip would pick it: --index-url, else PIP_INDEX_URL,
// else the last of pip's configuration files that sets index-url, else PyPI.
Setting index_url_setting(const std::string& option, const EnvMap& env, const FileSystemView& fs);
// That index's URL, without a trailing slash; an error names where a bad one was set.
Result<std::string> package_index_url(const std::string& option, const EnvMap& env, const FileSystemView& fs);

// Whether installing from `source` with these libraries reads the package index: the pypi
// source, or NCCL (its wheels).
bool reads_package_index(InstallSource source, const std::vector<std::string>& libraries);
// What a command's transfers keep to, found once at its start: the deadlines, and the CA
// certificates: pip's `cert` (PIP_CERT, or its files) where the command reads the package index
// and pip sets one, as pip would check that index with it; else those the environment names
// (install/ca_certificates.h). A cert that is not a file is an error.
Result<FetchSettings> fetch_settings(const EnvMap& env, const FileSystemView& fs, bool package_index);

// Whether stderr gets redrawn progress bars (no_progress_setting); without them, one plain line
// per event.
bool progress_bars(bool no_progress_option, const EnvMap& env);

// The releases of one redist folder, discovered at most once per command; a folder that cannot
// be read is said once on stderr.
class ReleaseSource {
 public:
  // `cache_dir`: where folder listings are cached (Layout::cache_dir).
  ReleaseSource(std::filesystem::path cache_dir, const ReleaseCatalog& shipped, std::string base_url, FetchSettings fetch)
      : cache_dir_(std::move(cache_dir)), shipped_(shipped), base_url_(std::move(base_url)), fetch_(std::move(fetch)) {}

  const std::string& base_url() const { return base_url_; }
  const DiscoveredReleases& discovered(ListFreshness freshness = ListFreshness::cache_ok);
  // The full label a request names: "12.1" is the newest 12.1.z the folder offers. A full
  // label is taken as it is, without asking the folder.
  Result<std::string> resolve(const std::string& request);

 private:
  std::filesystem::path cache_dir_;
  const ReleaseCatalog& shipped_;
  std::string base_url_;
  FetchSettings fetch_;
  std::optional<DiscoveredReleases> discovered_;
};

}  // namespace cudaenv
