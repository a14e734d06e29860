#include "mirror/redist_source.h"

#include <sys/utsname.h>

#include <algorithm>

#include "core/cuda_toml.h"
#include "core/selection.h"
#include "install/ca_certificates.h"
#include "install/plan.h"
#include "install/pypi_index.h"
#include "util/output.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

std::string machine_name() {
  struct utsname name {};
  ::uname(&name);
  return name.machine;
}

}  // namespace

Result<std::string> redist_base_url(const Setting& mirror) {
  std::string url = mirror.value;
  if (!starts_with(url, "http://") && !starts_with(url, "https://") && !starts_with(url, "file://")) {
    return make_error("mirror " + mirror.as_written() + " is not an http://, https:// or file:// URL",
                      "e.g. " + mirror.how_to_set("https://mirror.example/cuda/redist/") + ", or " +
                          mirror.how_to_set("file:///srv/cuda-redist/"),
                      ErrorKind::usage);
  }
  if (url.back() != '/') url += '/';
  return url;
}

Result<RedistCatalogs> load_redist_catalogs(const std::string& mirror_option, const DataFiles& data, const EnvMap& env) {
  CUDAENV_TRY_ASSIGN(auto releases, load_release_catalog(data));
  CUDAENV_TRY_ASSIGN(auto profiles, load_profile_catalog(data));
  CUDAENV_TRY_ASSIGN(auto base, redist_base_url(mirror_setting(mirror_option, env, releases.default_base)));
  return RedistCatalogs{std::move(releases), std::move(profiles), std::move(base)};
}

std::string host_redist_platform() { return redist_platform_for(machine_name()).value_or(""); }

Result<std::string> host_platform(const std::string& option) {
  Setting platform = platform_setting(option, host_redist_platform());
  if (!platform.value.empty()) return platform.value;
  return make_error("NVIDIA publishes no redist toolkit for this machine (" + machine_name() + ")",
                    "pass --platform linux-x86_64 or --platform linux-sbsa to fetch another platform's archives",
                    ErrorKind::usage);
}

Result<InstallSource> install_source(const std::string& option, const EnvMap& env, const FileSystemView& fs,
                                     const std::filesystem::path& cwd) {
  std::optional<CudaToml> project;
  if (option.empty() && env_setting(kSourceSetting, env).kind == OriginKind::fallback) {
    CUDAENV_TRY_ASSIGN(auto loaded, load_project(fs, cwd));
    project = std::move(loaded);
  }
  Setting source = source_setting(option, env, project ? &*project : nullptr);
  // cuda.toml's source was checked when it was read.
  std::optional<InstallSource> kind = parse_install_source(source.value);
  if (!kind) {
    return make_error(source.as_written() + " is not a source",
                      "use redist (NVIDIA's archives, or --mirror) or pypi (NVIDIA's CUDA wheels, or --index-url)",
                      ErrorKind::usage);
  }
  return *kind;
}

Setting index_url_setting(const std::string& option, const EnvMap& env, const FileSystemView& fs) {
  if (!option.empty()) return {option, OriginKind::argument, "--index-url"};
  if (auto configured = pip_setting(env, fs, "index-url")) return *configured;
  return {kDefaultPackageIndex, OriginKind::fallback, {}};
}

namespace {

// pip's files are INI: a value stands unquoted.
std::string pip_setting_as_written(const Setting& setting, const std::string& key) {
  return setting.kind == OriginKind::global_file ? key + " = " + setting.value + " in " + setting.where : setting.as_written();
}

}  // namespace

bool reads_package_index(InstallSource source, const std::vector<std::string>& libraries) {
  if (source == InstallSource::pypi) return true;
  return std::any_of(libraries.begin(), libraries.end(), [](const std::string& text) {
    auto spec = parse_library_spec(text, "library");
    return spec && spec->name == "nccl";
  });
}

Result<FetchSettings> fetch_settings(const EnvMap& env, const FileSystemView& fs, bool package_index) {
  FetchSettings fetch{.timeouts = fetch_timeouts(env), .certificates = {}};
  auto cert = package_index ? pip_setting(env, fs, "cert") : std::nullopt;
  if (!cert) {
    fetch.certificates = find_ca_certificates(env, fs);
    return fetch;
  }
  std::string written = pip_setting_as_written(*cert, "cert");
  if (fs.kind(cert->value) != EntryKind::file) {
    return make_error("pip's CA bundle " + written + " is not a file",
                      "point it at a PEM bundle, or remove it (pip config unset global.cert)", ErrorKind::usage);
  }
  fetch.certificates = CaCertificates{.file = cert->value, .dirs = {}, .origin = written, .looked = {}};
  return fetch;
}

Result<std::string> package_index_url(const std::string& option, const EnvMap& env, const FileSystemView& fs) {
  Setting index = index_url_setting(option, env, fs);
  std::string url = index.value;
  if (!starts_with(url, "http://") && !starts_with(url, "https://") && !starts_with(url, "file://")) {
    std::string written = pip_setting_as_written(index, "index-url");
    return make_error("package index " + written + " is not an http://, https:// or file:// URL",
                      "e.g. --index-url https://pypi.org/simple, or a proxy such as "
                      "https://artifactory.example/api/pypi/pypi/simple",
                      ErrorKind::usage);
  }
  while (url.back() == '/') url.pop_back();
  return url;
}

bool progress_bars(bool no_progress_option, const EnvMap& env) {
  return wants_progress_bars(stderr, is_on(no_progress_setting(no_progress_option, env)));
}

const DiscoveredReleases& ReleaseSource::discovered(ListFreshness freshness) {
  if (discovered_ && freshness == ListFreshness::cache_ok) return *discovered_;
  discovered_ = discover_releases(shipped_, base_url_, cache_dir_, freshness, fetch_);
  if (!discovered_->warning.empty()) print_warning(discovered_->warning);
  if (discovered_->unreadable) {
    print_note("cannot read the list of releases at " + base_url_ + ": " + discovered_->unreadable->message + "; using " +
               (discovered_->origin == "stale cache" ? "the list cached earlier" : "the releases this cudaenv knows") +
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
