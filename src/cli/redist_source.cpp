#include "cli/redist_source.h"

#include <sys/utsname.h>

#include "install/pip_config.h"
#include "install/plan.h"
#include "install/pypi_index.h"
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

Result<std::string> host_platform(const std::string& option) {
  if (!option.empty()) return option;
  struct utsname name {};
  ::uname(&name);
  if (auto platform = redist_platform_for(name.machine)) return *platform;
  return make_error(std::string("NVIDIA publishes no redist toolkit for this machine (") + name.machine + ")",
                    "pass --platform linux-x86_64 or --platform linux-sbsa to fetch another platform's archives", 2);
}

Result<std::string> install_source(const std::string& option, const Session& session) {
  std::string source = option, origin = "--source";
  if (source.empty() && (source = env_get(session.env, "CUDAENV_SOURCE").value_or("")).size()) origin = "CUDAENV_SOURCE";
  if (source.empty()) {
    auto project = load_project(session.fs, session.cwd);
    if (!project) return project.take_error();
    if (*project && (*project)->source) return *(*project)->source;  // checked when cuda.toml was read
    return std::string("redist");
  }
  if (source != "redist" && source != "pypi") {
    return make_error(origin + " '" + source + "' is not a source",
                      "use redist (NVIDIA's archives, or --mirror) or pypi (NVIDIA's CUDA wheels, or --index-url)", 2);
  }
  return source;
}

Result<std::string> package_index_url(const std::string& option, const Session& session) {
  std::string url = option, origin = "--index-url";
  if (url.empty() && (url = env_get(session.env, "PIP_INDEX_URL").value_or("")).size()) origin = "PIP_INDEX_URL";
  if (url.empty()) {
    for (const fs::path& file : pip_config_files(session.env)) {
      auto text = session.fs.read_file(file);
      if (!text) continue;  // pip skips files it cannot read
      if (auto configured = pip_config_index_url(*text)) {
        url = *configured;
        origin = file.string() + "'s index-url";
      }
    }
  }
  if (url.empty()) return std::string(kDefaultPackageIndex);
  if (!starts_with(url, "http://") && !starts_with(url, "https://") && !starts_with(url, "file://")) {
    return make_error(origin + " '" + url + "' is not an http://, https:// or file:// URL",
                      "e.g. --index-url https://pypi.org/simple, or a proxy such as "
                      "https://artifactory.example/api/pypi/pypi/simple", 2);
  }
  while (url.back() == '/') url.pop_back();
  return url;
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
