#include "cli/redist_source.h"

#include <sys/utsname.h>

#include "install/plan.h"
#include "cli/output.h"
#include "util/strings.h"

namespace cudaenv {

Result<std::string> redist_base_url(const std::string& option, const Session& session, const ReleaseCatalog& releases) {
  std::string url = option;
  if (url.empty()) url = env_get(session.env, "CUDAENV_MIRROR").value_or(releases.default_base);
  if (!starts_with(url, "http://") && !starts_with(url, "https://") && !starts_with(url, "file://")) {
    return make_error("mirror '" + url + "' is not an http://, https:// or file:// URL",
                      "e.g. --mirror https://mirror.example/cuda/redist/ or --mirror file:///srv/cuda-redist/", 2);
  }
  if (url.back() != '/') url += '/';
  return url;
}

Result<RedistCatalogs> load_redist_catalogs(const std::string& mirror_option, const Session& session) {
  auto releases = load_release_catalog();
  if (!releases) return releases.take_error();
  auto profiles = load_profile_catalog();
  if (!profiles) return profiles.take_error();
  auto base = redist_base_url(mirror_option, session, *releases);
  if (!base) return base.take_error();
  return RedistCatalogs{std::move(*releases), std::move(*profiles), std::move(*base)};
}

Result<std::string> host_platform(const std::string& option) {
  if (!option.empty()) return option;
  struct utsname name {};
  ::uname(&name);
  if (auto platform = redist_platform_for(name.machine)) return *platform;
  return make_error(std::string("NVIDIA publishes no redist toolkit for this machine (") + name.machine + ")",
                    "pass --platform linux-x86_64 or --platform linux-sbsa to fetch another platform's archives", 2);
}

bool skip_manifest_pin(bool option, const Session& session) {
  return option || env_get(session.env, "CUDAENV_SKIP_MANIFEST_PIN") == "1";
}

const DiscoveredReleases& ReleaseSource::discovered(ListFreshness freshness) {
  if (discovered_ && freshness == ListFreshness::cache_ok) return *discovered_;
  discovered_ = discover_releases(shipped_, base_url_, session_.layout.cache_dir(), freshness);
  if (discovered_->unreadable) {
    print_note("cannot read the list of releases at " + base_url_ + ": " + discovered_->unreadable->message +
               "; using " + (discovered_->origin == "stale cache" ? "the list cached earlier" : "the releases this cudaenv knows") +
               " (`cudaenv update` tries again)");
  }
  return *discovered_;
}

Result<std::string> ReleaseSource::resolve(const std::string& request) {
  auto wanted = parse_version(request);
  if (!wanted || wanted->parts.size() >= 3) return shipped_.resolve(request);
  const DiscoveredReleases& releases = discovered();
  auto label = releases.catalog.resolve(request);
  if (label) return label;
  Error error = label.take_error();
  if (base_url_ != shipped_.default_base) error.message += " in the mirror " + base_url_;
  error.hint = "`cudaenv list-remote" + (base_url_ != shipped_.default_base ? " --mirror " + base_url_ : std::string()) +
               "` lists what it holds";
  if (releases.origin == "cache") error.hint += "; `cudaenv update` refreshes the list, cached for a day";
  return error;
}

}  // namespace cudaenv
