#include "cli/redist_source.h"

#include <CLI/CLI.hpp>

#include <sys/utsname.h>

#include "core/settings_table.h"
#include "install/ca_certificates.h"
#include "install/downloader.h"
#include "install/plan.h"
#include "install/pypi_index.h"
#include "util/output.h"
#include "util/strings.h"

namespace cudaenv {

void add_fetch_options(CLI::App& command, std::string& mirror, std::string& source, std::string& index_url,
                       bool& skip_manifest_pin) {
  command.add_option("--mirror", mirror, "Base URL of the redist folder (http, https, file://); CUDAENV_MIRROR");
  command.add_option("--source", source,
                     "redist (NVIDIA's archives, default) or pypi (NVIDIA's CUDA 13 wheels); CUDAENV_SOURCE, cuda.toml");
  command.add_option("--index-url", index_url,
                     "Package index for --source pypi and NCCL; default PIP_INDEX_URL, pip's index-url, https://pypi.org/simple");
  command.add_flag("--skip-manifest-pin", skip_manifest_pin,
                   "Accept a manifest that differs from its pinned sha256 (private mirrors); CUDAENV_SKIP_MANIFEST_PIN=1");
}

void add_progress_option(CLI::App& command, bool& no_progress) {
  command.add_flag("--no-progress", no_progress,
                   "No progress bars on a terminal, one line per download instead; CUDAENV_NO_PROGRESS=1");
}

namespace {

std::string machine_name() {
  struct utsname name {};
  ::uname(&name);
  return name.machine;
}

}  // namespace

Setting mirror_setting(const std::string& option, const Session& session, const ReleaseCatalog& releases) {
  return pick_setting({"--mirror", "CUDAENV_MIRROR"}, option, session.env, std::nullopt, {}, releases.default_base);
}

Setting platform_setting(const std::string& option) {
  return pick_setting({"--platform"}, option, {}, std::nullopt, {}, redist_platform_for(machine_name()).value_or(""));
}

Setting skip_manifest_pin_setting(bool option, const Session& session) {
  return pick_setting({"--skip-manifest-pin", "CUDAENV_SKIP_MANIFEST_PIN"}, option ? "1" : "", session.env, std::nullopt, {},
                      "0");
}

Setting text_timeout_setting(const Session& session) {
  return pick_setting({nullptr, kTextTimeoutVariable}, {}, session.env, std::nullopt, {},
                      std::to_string(kDefaultTextTimeoutSeconds));
}

Setting profile_setting(const std::string& option, const CudaToml* project, const ProfileCatalog& profiles) {
  return pick_setting({"--profile", nullptr, "profile"}, option, {}, project ? project->profile : std::nullopt,
                      project ? project->path : fs::path(), profiles.default_profile);
}

Setting jobs_setting(std::optional<int> option) {
  return pick_setting({"--jobs"}, option ? std::to_string(*option) : "", {}, std::nullopt, {}, std::to_string(kDefaultJobs));
}

Result<std::string> redist_base_url(const std::string& option, const Session& session, const ReleaseCatalog& releases) {
  Setting mirror = mirror_setting(option, session, releases);
  std::string url = mirror.value;
  if (!starts_with(url, "http://") && !starts_with(url, "https://") && !starts_with(url, "file://")) {
    return make_error("mirror " + mirror.as_written() + " is not an http://, https:// or file:// URL",
                      "e.g. " + mirror.how_to_set("https://mirror.example/cuda/redist/") + ", or " +
                          mirror.how_to_set("file:///srv/cuda-redist/"),
                      2);
  }
  if (url.back() != '/') url += '/';
  return url;
}

Result<RedistCatalogs> load_redist_catalogs(const std::string& mirror_option, const Session& session) {
  CUDAENV_TRY_ASSIGN(auto releases, load_release_catalog(session.data));
  CUDAENV_TRY_ASSIGN(auto profiles, load_profile_catalog(session.data));
  CUDAENV_TRY_ASSIGN(auto base, redist_base_url(mirror_option, session, releases));
  return RedistCatalogs{std::move(releases), std::move(profiles), std::move(base)};
}

Result<std::string> host_platform(const std::string& option) {
  Setting platform = platform_setting(option);
  if (!platform.value.empty()) return platform.value;
  return make_error("NVIDIA publishes no redist toolkit for this machine (" + machine_name() + ")",
                    "pass --platform linux-x86_64 or --platform linux-sbsa to fetch another platform's archives", 2);
}

Setting source_setting(const std::string& option, const Session& session, const CudaToml* project) {
  return pick_setting({"--source", "CUDAENV_SOURCE", "source"}, option, session.env, project ? project->source : std::nullopt,
                      project ? project->path : fs::path(), std::string(source_name(InstallSource::redist)));
}

Result<InstallSource> install_source(const std::string& option, const Session& session) {
  std::optional<CudaToml> project;
  if (option.empty() && !env_get(session.env, "CUDAENV_SOURCE").value_or("").size()) {
    CUDAENV_TRY_ASSIGN(auto loaded, load_project(session.fs, session.cwd));
    project = std::move(loaded);
  }
  Setting source = source_setting(option, session, project ? &*project : nullptr);
  // cuda.toml's source was checked when it was read.
  std::optional<InstallSource> kind = parse_install_source(source.value);
  if (!kind) {
    return make_error(source.as_written() + " is not a source",
                      "use redist (NVIDIA's archives, or --mirror) or pypi (NVIDIA's CUDA wheels, or --index-url)", 2);
  }
  return *kind;
}

Setting index_url_setting(const std::string& option, const Session& session) {
  if (!option.empty()) return {option, OriginKind::argument, "--index-url"};
  if (auto configured = pip_setting(session.env, session.fs, "index-url")) return *configured;
  return {kDefaultPackageIndex, OriginKind::fallback, {}};
}

namespace {

// pip's files are INI: a value stands unquoted.
std::string pip_setting_as_written(const Setting& setting, const std::string& key) {
  return setting.kind == OriginKind::global_file ? key + " = " + setting.value + " in " + setting.where : setting.as_written();
}

Status use_pip_cert(const Session& session) {
  auto cert = pip_setting(session.env, session.fs, "cert");
  if (!cert) return ok_status();
  std::string written = pip_setting_as_written(*cert, "cert");
  if (session.fs.kind(cert->value) != EntryKind::file) {
    return make_error("pip's CA bundle " + written + " is not a file",
                      "point it at a PEM bundle, or remove it (pip config unset global.cert)", 2);
  }
  set_ca_certificates(CaCertificates{cert->value, {}, written, {}});
  return ok_status();
}

}  // namespace

Result<std::string> package_index_url(const std::string& option, const Session& session) {
  CUDAENV_TRY(use_pip_cert(session));
  Setting index = index_url_setting(option, session);
  std::string url = index.value;
  if (!starts_with(url, "http://") && !starts_with(url, "https://") && !starts_with(url, "file://")) {
    std::string written = pip_setting_as_written(index, "index-url");
    return make_error("package index " + written + " is not an http://, https:// or file:// URL",
                      "e.g. --index-url https://pypi.org/simple, or a proxy such as "
                      "https://artifactory.example/api/pypi/pypi/simple",
                      2);
  }
  while (url.back() == '/') url.pop_back();
  return url;
}

bool skip_manifest_pin(bool option, const Session& session) { return is_on(skip_manifest_pin_setting(option, session)); }

Setting no_progress_setting(bool option, const Session& session) {
  return pick_setting({"--no-progress", "CUDAENV_NO_PROGRESS"}, option ? "1" : "", session.env, std::nullopt, {}, "0");
}

bool progress_bars(bool no_progress_option, const Session& session) {
  return wants_progress_bars(stderr, is_on(no_progress_setting(no_progress_option, session)));
}

const DiscoveredReleases& ReleaseSource::discovered(ListFreshness freshness) {
  if (discovered_ && freshness == ListFreshness::cache_ok) return *discovered_;
  discovered_ = discover_releases(shipped_, base_url_, session_.layout.cache_dir(), freshness);
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
