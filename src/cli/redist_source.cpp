#include "cli/redist_source.h"

#include <sys/utsname.h>

#include "install/plan.h"
#include "mirror/mirror_store.h"
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

bool skip_manifest_pin(bool option, const Session& session) {
  return option || env_get(session.env, "CUDAENV_SKIP_MANIFEST_PIN") == "1";
}

Result<std::string> resolve_release(const std::string& request, const std::string& base_url,
                                    const ReleaseCatalog& releases) {
  auto wanted = parse_version(request);
  // A full label needs no list, and NVIDIA's folder has no index to ask.
  if (!wanted || wanted->parts.size() >= 3 || base_url == releases.default_base) return releases.resolve(request);
  auto index = fetch_mirror_index(base_url, 1);
  if (!index) return releases.resolve(request);
  auto label = mirror_catalog(*index, base_url, releases).resolve(request);
  if (!label) {
    Error error = label.take_error();
    error.message += " in the mirror " + base_url;
    error.hint = "`cudaenv list-remote --mirror " + base_url + "` lists what it holds";
    return error;
  }
  return label;
}

}  // namespace cudaenv
