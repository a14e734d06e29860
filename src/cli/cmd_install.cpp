// install, uninstall, list-remote: toolkits from NVIDIA's redist archives or CUDA wheels (src/install/).
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/interrupts.h"
#include "cli/session.h"
#include "cli/torch_index_refresh.h"
#include "core/settings_table.h"
#include "doctor/driver_ceiling.h"
#include "install/installer.h"
#include "install/plan.h"
#include "install/pypi_index.h"
#include "install/redist_files.h"
#include "lock/locked_install.h"
#include "lock/project_lock.h"
#include "mirror/redist_source.h"
#include "store/rehash.h"
#include "util/json_reader.h"
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

LockSources lock_sources(const Session& session, std::string base_url, const std::string& index_url_option,
                         bool skip_manifest_pin_option, FetchSettings fetch) {
  return LockSources{
      .base_url = std::move(base_url),
      .skip_manifest_pin = is_on(skip_manifest_pin_setting(skip_manifest_pin_option, session.env)),
      .cudnn_mirror = env_setting(kCudnnMirrorSetting, session.env),
      .index_url = [&session, index_url_option] { return package_index_url(index_url_option, session.env, session.fs); },
      .fetch = std::move(fetch),
      .data = session.data,
      .cache_dir = session.layout.cache_dir(),
  };
}

namespace {

struct InstallOptions {
  std::vector<std::string> versions;
  std::string profile;
  std::vector<std::string> components;
  std::string mirror;
  std::optional<int> jobs;
  bool force = false;
  std::string platform;
  bool keep_downloads = false;
  bool skip_manifest_pin = false;
  std::string source;
  std::string index_url;
  std::vector<std::string> libraries;
  bool locked = false;
  bool frozen = false;
  bool no_progress = false;
};

// The versions to install and what to install of them: the arguments, else the nearest
// cuda.toml, which is returned when it is used.
Result<std::optional<CudaToml>> apply_project(InstallOptions& options, const Session& session) {
  if (!options.versions.empty()) {
    if (options.locked || options.frozen) {
      return make_error("--locked and --frozen install what cuda.lock holds, so they take no VERSION",
                        "run `cudaenv install --locked` in the project, or drop the flag", ErrorKind::usage);
    }
    return std::optional<CudaToml>{};
  }
  auto project = load_project(session.fs, session.cwd);
  if (!project) return project.take_error();
  if (!*project) {
    return make_error("no VERSION given and no cuda.toml in " + session.cwd.string() + " or above",
                      "run `cudaenv install 12.1`, or `cudaenv use 12.1` to pin this project first", ErrorKind::usage);
  }
  const CudaToml& toml = **project;
  if (toml.version.empty()) {
    return make_error(toml.path.string() + " pins no CUDA version",
                      "run `cudaenv install 12.1`, or `cudaenv use 12.1` to pin this project first", ErrorKind::usage);
  }
  if (!parse_version(toml.version)) {
    return make_error(toml.path.string() + " asks for '" + toml.version + "', which cannot be installed",
                      "only CUDA versions such as 12.1 can be installed; `cudaenv add` registers other toolkits");
  }
  print_note("installing what " + toml.path.string() + " asks for");
  options.versions.push_back(toml.version);
  if (options.profile.empty() && toml.profile) options.profile = *toml.profile;
  options.components.insert(options.components.begin(), toml.components.begin(), toml.components.end());
  options.libraries.insert(options.libraries.begin(), toml.libraries.begin(), toml.libraries.end());
  return project;
}

std::string summary(const InstallResult& result) {
  std::uint64_t bytes = 0;
  std::vector<std::string> parts;
  for (const Archive& file : result.plan.files) {
    parts.push_back(file.name + " " + file.version);
    bytes += file.size;
  }
  return join(parts, ", ") + "; " + human_bytes(bytes) + " downloaded";
}

// Before a toolkit is downloaded, a warning where the driver cannot run it. `driver` is read
// once per command: a multi-version install asks for each version.
Status warn_driver_ceiling(const Session& session, std::optional<DriverProbe>& driver, const std::string& label) {
  if (!driver) {
    CUDAENV_TRY_ASSIGN(auto stand_in, driver_override(session.env));
    CUDAENV_TRY_ASSIGN(auto target, session.selected_target());
    driver = install_driver(session.fs, session.env, target, stand_in);
  }
  if (!driver->cuda && !driver->version) return ok_status();
  CUDAENV_TRY_ASSIGN(auto facts, load_cuda_facts(session.data));
  if (auto ceiling = driver_ceiling(*driver, label, facts)) {
    print_warning(ceiling->warning);
    print_note(ceiling->advice);
  }
  return ok_status();
}

// Turns a full label into versions/<label>, reporting how it went.
Status install_one(const Session& session, std::optional<DriverProbe>& driver, const ProfileCatalog& profiles,
                   const InstallRequest& request, const PlanFiles& plan_files, const FetchSettings& fetch,
                   ProgressReporter& progress) {
  std::error_code ec;
  if (request.force || !fs::exists(fs::symlink_status(session.layout.versions_dir() / request.label, ec))) {
    CUDAENV_TRY(warn_driver_ceiling(session, driver, request.label));
  }
  auto started = std::chrono::steady_clock::now();
  auto rehash = [&]() -> Status {
    auto rehashed = rehash_after_change(session.fs, session.layout);
    if (!rehashed) return rehashed.take_error();
    return ok_status();
  };
  // The xz decoders allocate dictionary-sized buffers (8 MiB for xz -6); a fixed mmap threshold
  // hands each back to the system when freed instead of letting glibc keep it in a per-thread
  // arena. Process-wide, so it is set here, at the edge.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  std::optional<Interrupts> interrupts;  // the signals' handlers until the install returns
  InterruptWatch watch{[&] { interrupts.emplace(); }, &Interrupts::interrupted};
  CUDAENV_TRY_ASSIGN(auto result, install_release(session.layout, profiles, request, plan_files, fetch, progress, rehash, watch));
  if (result.already_installed) {
    print_note("CUDA " + request.label + " is already installed in " + result.home.string() + " (--force reinstalls it)");
    return ok_status();
  }
  std::string took = seconds_text(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  std::string from = result.plan.source == InstallSource::pypi ? " from " + result.plan.origin : "";
  print_note("installed CUDA " + request.label + from + " in " + took + " -> " + result.home.string() + " (" + summary(result) +
             ")");
  return ok_status();
}

// The lock a project install uses: cuda.lock as it is (--locked checks it against cuda.toml
// first, --frozen does not), or with [cuda] lock = true one resolved again and written when
// cuda.toml has changed since.
Result<LockFile> project_lock(const InstallOptions& options, const Session& session, const ReleaseCatalog& releases,
                              const ProfileCatalog& profiles, const CudaToml& toml, const std::string& platform,
                              ProgressReporter& progress) {
  fs::path path = lock_path_of(toml);
  CUDAENV_TRY_ASSIGN(auto existing, read_lock_file(path));
  CUDAENV_TRY_ASSIGN(auto source_kind, install_source(options.source, session.env, session.fs, session.cwd));
  // cuda.toml's request as the command line widened it (project_install() merged the two).
  CudaToml asked = toml;
  if (!options.profile.empty()) asked.profile = options.profile;
  asked.components = options.components;
  asked.libraries = options.libraries;
  LockRequest wanted = lock_request_of(asked, source_kind);
  bool pinned = options.locked || options.frozen;
  if (!existing && pinned) {
    return make_error("no " + path.string() + " to install from", "run `cudaenv lock` to write it, then commit it");
  }
  if (existing) {
    const CudaLock& lock = existing->lock;
    std::vector<std::string> differences =
        options.frozen ? std::vector<std::string>{} : request_differences(lock.request, wanted);
    bool has_platform = std::count(lock.platforms.begin(), lock.platforms.end(), platform) > 0;
    if (!differences.empty() && options.locked) {
      return make_error(path.string() + " does not match " + toml.path.string() + ": " + join(differences, "; "),
                        "run `cudaenv lock` to update the lock, or install without --locked");
    }
    if (pinned || (differences.empty() && has_platform)) return std::move(*existing);
  }
  CUDAENV_TRY_ASSIGN(auto base, redist_base_url(mirror_setting(options.mirror, session.env, releases.default_base)));
  std::vector<std::string> platforms = existing ? existing->lock.platforms : std::vector<std::string>{};
  platforms.push_back(platform);
  CUDAENV_TRY_ASSIGN(auto fetch, fetch_settings(session.env, session.fs, reads_package_index(source_kind, asked.libraries)));
  auto lock = resolve_lock(releases, profiles, wanted, platforms,
                           lock_sources(session, base, options.index_url, options.skip_manifest_pin, std::move(fetch)), progress);
  if (!lock) return lock.take_error();
  CUDAENV_TRY(write_lock_file(path, *lock));
  print_note((existing ? "updated " : "wrote ") + path.string() + " (CUDA " + lock->label + ")");
  return LockFile{path, render_lock(*lock), std::move(*lock)};
}

Result<int> install_locked(const Session& session, const InstallOptions& options, const ReleaseCatalog& releases,
                           const ProfileCatalog& profiles, const CudaToml& toml, const std::string& platform) {
  ProgressReporter progress(stderr, progress_bars(options.no_progress, session.env));
  CUDAENV_TRY_ASSIGN(auto file, project_lock(options, session, releases, profiles, toml, platform, progress));
  LockUse use{.mirror = mirror_setting(options.mirror, session.env, releases.default_base),
              .index = index_url_setting(options.index_url, session.env, session.fs),
              .skip_manifest_pin = is_on(skip_manifest_pin_setting(options.skip_manifest_pin, session.env)),
              .flag = options.locked   ? "--locked"
                      : options.frozen ? "--frozen"
                                       : ""};
  // The replacing places are the command's: --mirror and --index-url, or their settings.
  const LockRequest& locked = file.lock.request;
  CUDAENV_TRY_ASSIGN(auto fetch, fetch_settings(session.env, session.fs, reads_package_index(locked.source, locked.libraries)));
  LockSources sources = lock_sources(session, "", options.index_url, options.skip_manifest_pin, fetch);
  CUDAENV_TRY_ASSIGN(auto install, locked_install(file, platform, releases, profiles, use, sources,
                                                  TrustStore(session.layout.trust_dir()), progress));
  const CudaLock& lock = file.lock;
  InstallRequest& request = install.request;
  request.jobs = options.jobs.value_or(kDefaultJobs);
  request.force = options.force;
  request.keep_downloads = options.keep_downloads;
  fs::path home = session.layout.versions_dir() / lock.label;
  std::error_code ec;
  if (!request.force && fs::exists(fs::symlink_status(home, ec))) {
    std::vector<std::string> differences = installed_differences(home, lock, platform);
    if (!differences.empty()) {
      print_note("CUDA " + lock.label + " in " + home.string() + " differs from cuda.lock (" + join(differences, "; ") +
                 "); reinstalling it as locked");
      request.force = true;
    }
  }
  std::optional<DriverProbe> driver;
  CUDAENV_TRY(install_one(session, driver, profiles, request, install.plan_files, fetch, progress));
  return 0;
}

Result<int> run_install(const Session& session, InstallOptions options) {
  if (options.jobs && *options.jobs < 1) return make_error("--jobs must be at least 1", "e.g. --jobs 4", ErrorKind::usage);
  int jobs = options.jobs.value_or(kDefaultJobs);
  CUDAENV_TRY_ASSIGN(auto project, apply_project(options, session));
  CUDAENV_TRY_ASSIGN(auto releases, load_release_catalog(session.data));
  CUDAENV_TRY_ASSIGN(auto profiles, load_profile_catalog(session.data));
  CUDAENV_TRY_ASSIGN(auto platform, host_platform(options.platform));
  if (project && (options.locked || options.frozen || project->lock)) {
    return install_locked(session, options, releases, profiles, *project, platform);
  }
  CUDAENV_TRY_ASSIGN(auto source, install_source(options.source, session.env, session.fs, session.cwd));
  CUDAENV_TRY_ASSIGN(auto fetch, fetch_settings(session.env, session.fs, reads_package_index(source, options.libraries)));
  ProgressReporter progress(stderr, progress_bars(options.no_progress, session.env));
  std::string profile = profile_setting(options.profile, project ? &*project : nullptr, profiles.default_profile).value;
  std::optional<DriverProbe> driver;
  auto request_for = [&](const std::string& label) {
    return InstallRequest{.label = label,
                          .profile = profile,
                          .components = options.components,
                          .platform = platform,
                          .jobs = jobs,
                          .force = options.force,
                          .keep_downloads = options.keep_downloads,
                          .libraries = options.libraries};
  };
  if (source == InstallSource::pypi) {
    CUDAENV_TRY_ASSIGN(auto index_url, package_index_url(options.index_url, session.env, session.fs));
    PackageIndex index(index_url, fetch);
    for (const std::string& version : options.versions) {
      CUDAENV_TRY_ASSIGN(
          auto label,
          resolve_wheel_label(index, profiles, version,
                              WheelRequest{.profile = profile, .components = options.components, .platform = platform}));
      CUDAENV_TRY_ASSIGN(auto base, redist_base_url(mirror_setting(options.mirror, session.env, releases.default_base)));
      PlanFiles plan_files =
          with_libraries(plan_wheel_files(index, profiles),
                         lock_sources(session, base, options.index_url, options.skip_manifest_pin, fetch), progress);
      CUDAENV_TRY(install_one(session, driver, profiles, request_for(label), plan_files, fetch, progress));
    }
    return 0;
  }
  CUDAENV_TRY_ASSIGN(auto base, redist_base_url(mirror_setting(options.mirror, session.env, releases.default_base)));
  LockSources sources = lock_sources(session, base, options.index_url, options.skip_manifest_pin, fetch);
  RedistFolder folder{.base_url = sources.base_url, .skip_manifest_pin = sources.skip_manifest_pin, .fetch = sources.fetch};
  ReleaseSource releases_at(sources.cache_dir, releases, base, sources.fetch);
  for (const std::string& version : options.versions) {
    CUDAENV_TRY_ASSIGN(auto label, releases_at.resolve(version));
    PlanFiles plan_files = with_libraries(plan_redist_files(releases, profiles, folder, progress), sources, progress);
    CUDAENV_TRY(install_one(session, driver, profiles, request_for(label), plan_files, fetch, progress));
  }
  return 0;
}

struct UninstallOptions {
  std::string version;
  bool yes = false;
};

Result<Toolkit> find_removable(const Session& session, const std::string& version) {
  std::vector<Toolkit> mine;
  for (const Toolkit& toolkit : session.toolkits()) {
    if (toolkit.source == ToolkitSource::user_root) mine.push_back(toolkit);
  }
  // Exact names only: "12" must never remove 12.6.0, so a partial version lists what it
  // matches and asks for one of them.
  for (const Toolkit& toolkit : mine) {
    if (toolkit.name == version) return toolkit;
  }
  std::vector<std::string> matching;
  if (auto wanted = parse_version(version)) {
    for (const Toolkit& toolkit : mine) {
      if (toolkit.version && version_matches(*wanted, *toolkit.version)) matching.push_back(toolkit.name);
    }
  }
  if (!matching.empty()) {
    return make_error("uninstall takes a toolkit's full name, and '" + version + "' matches " + join(matching, ", "),
                      "name the one to remove, e.g. cudaenv uninstall " + matching.front(), ErrorKind::usage);
  }
  for (const Toolkit& toolkit : session.toolkits()) {
    if (toolkit.name == version && toolkit.source == ToolkitSource::shared_root) {
      return make_error("CUDA " + version + " lives in the shared root " + toolkit.home.parent_path().string(),
                        "only its administrator can remove it");
    }
  }
  return not_installed_error(Request{version, OriginKind::argument, {}, "uninstall"}, mine);
}

bool confirmed(const std::string& question) {
  std::fprintf(stderr, "%s [y/N] ", terminal_safe(question).c_str());
  std::fflush(stderr);
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  answer = std::string(trim(answer));
  return answer == "y" || answer == "Y" || answer == "yes";
}

Result<int> run_uninstall(const Session& session, const UninstallOptions& options) {
  CUDAENV_TRY_ASSIGN(auto toolkit, find_removable(session, options.version));
  fs::path entry = session.layout.versions_dir() / toolkit.name;
  if (toolkit.registered) {
    std::error_code ec;
    fs::remove(entry, ec);
    if (ec) return make_error("cannot remove " + entry.string() + ": " + ec.message());
    print_note("unregistered CUDA " + toolkit.name + " (" + toolkit.home.string() + " itself was left alone)");
  } else {
    if (!options.yes) {
      if (!::isatty(0)) {
        return make_error("refusing to remove CUDA " + toolkit.name + " without confirmation",
                          "stdin is not a terminal: pass --yes to remove " + entry.string(), ErrorKind::usage);
      }
      if (!confirmed("remove CUDA " + toolkit.name + " (" + entry.string() + ")?")) {
        print_note("nothing removed");
        return 1;
      }
    }
    CUDAENV_TRY(remove_installed(session.layout, toolkit.name));
    print_note("removed CUDA " + toolkit.name + " (" + entry.string() + ")");
  }
  auto rehashed = rehash_after_change(session.fs, session.layout);
  if (!rehashed) return rehashed.take_error();
  return 0;
}

struct ListRemoteOptions {
  std::string prefix;
  std::string mirror;
  std::string source;
  std::string index_url;
  bool bare = false;
  bool json = false;
  bool refresh = false;
  bool offline = false;
};

// What list-remote and update read: the shipped list and the folder's URL.
struct RemoteFolder {
  ReleaseCatalog shipped;
  std::string base;
};

Result<RemoteFolder> remote_folder(const Session& session, const std::string& mirror) {
  CUDAENV_TRY_ASSIGN(auto shipped, load_release_catalog(session.data));
  CUDAENV_TRY_ASSIGN(auto base, redist_base_url(mirror_setting(mirror, session.env, shipped.default_base)));
  return RemoteFolder{std::move(shipped), std::move(base)};
}

bool is_installed(const std::vector<Toolkit>& toolkits, const std::string& label) {
  return std::any_of(toolkits.begin(), toolkits.end(), [&](const Toolkit& t) { return t.name == label; });
}

// The toolkit releases the package index's cuda-toolkit metapackage offers, newest first.
Result<int> run_list_remote_pypi(const Session& session, const ListRemoteOptions& options, const std::optional<Version>& prefix) {
  if (options.offline) return 0;  // an index's pages are not cached: offline (completions) lists nothing
  CUDAENV_TRY_ASSIGN(auto index_url, package_index_url(options.index_url, session.env, session.fs));
  CUDAENV_TRY_ASSIGN(auto fetch, fetch_settings(session.env, session.fs, true));
  PackageIndex index(index_url, fetch);
  CUDAENV_TRY_ASSIGN(auto files, index.files("cuda-toolkit"));
  std::vector<Toolkit> toolkits = session.toolkits();
  nlohmann::ordered_json json_rows = nlohmann::ordered_json::array();
  for (const ToolkitRelease& release : toolkit_releases(files)) {
    Version version = *parse_version(release.label);
    if (prefix && !version_matches(*prefix, version)) continue;
    bool installed = is_installed(toolkits, release.label);
    std::string note = version.major() < 13 ? "no nvcc wheel (use --source redist)" : installed ? "installed" : "";
    if (options.bare) {
      if (version.major() >= 13) std::printf("%s\n", release.label.c_str());
    } else if (options.json) {
      json_rows.push_back({{"version", release.label},
                           {"installed", installed},
                           {"installable", version.major() >= 13},
                           {"source", index.url()}});
    } else {
      std::string line = std::string(installed ? "* " : "  ") + release.label;
      if (!note.empty()) line += std::string(release.label.size() < 8 ? 10 - release.label.size() : 2, ' ') + note;
      std::printf("%s\n", line.c_str());
    }
  }
  if (options.json) std::fputs(json_text(json_rows).c_str(), stdout);
  return 0;
}

Result<int> run_list_remote(const Session& session, const ListRemoteOptions& options) {
  std::optional<Version> prefix;
  if (!options.prefix.empty() && !(prefix = parse_version(options.prefix))) {
    return make_error("'" + options.prefix + "' is not a version prefix", "e.g. cudaenv list-remote 12", ErrorKind::usage);
  }
  CUDAENV_TRY_ASSIGN(auto kind, install_source(options.source, session.env, session.fs, session.cwd));
  if (kind == InstallSource::pypi) return run_list_remote_pypi(session, options, prefix);
  CUDAENV_TRY_ASSIGN(auto folder, remote_folder(session, options.mirror));
  CUDAENV_TRY_ASSIGN(auto fetch, fetch_settings(session.env, session.fs, false));
  ReleaseSource source(session.layout.cache_dir(), folder.shipped, folder.base, fetch);
  const DiscoveredReleases& discovered = source.discovered(options.refresh   ? ListFreshness::refresh
                                                           : options.offline ? ListFreshness::offline
                                                                             : ListFreshness::cache_ok);
  std::vector<Toolkit> toolkits = session.toolkits();
  auto installed = [&](const std::string& label) { return is_installed(toolkits, label); };
  nlohmann::ordered_json json_rows = nlohmann::ordered_json::array();
  for (const Release& release : discovered.catalog.releases) {
    if (prefix && !version_matches(*prefix, release.version)) continue;
    if (options.bare) {
      std::printf("%s\n", release.label.c_str());
    } else if (options.json) {
      json_rows.push_back({{"version", release.label},
                           {"release_date", release.date ? nlohmann::ordered_json(*release.date) : nullptr},
                           {"installed", installed(release.label)},
                           {"manifest_pinned", release.sha256.has_value()},
                           {"source", discovered.origin}});
    } else {
      char row[96];
      std::snprintf(row, sizeof row, "%s %-8s %-10s  %s", installed(release.label) ? "*" : " ", release.label.c_str(),
                    terminal_safe(release.date.value_or("")).c_str(), installed(release.label) ? "installed" : "");
      std::string line = row;
      line.erase(line.find_last_not_of(' ') + 1);
      std::printf("%s\n", line.c_str());
    }
  }
  if (options.json) std::fputs(json_text(json_rows).c_str(), stdout);
  return 0;
}

struct UpdateOptions {
  std::string mirror;
};

// The PyTorch index too, unless the user turned it off: `update` is the one "refresh what cudaenv
// learns from the network" command.
Status update_torch_index(const Session& session) {
  if (is_on(env_setting(kTorchOfflineSetting, session.env))) return ok_status();
  auto snapshot = refresh_torch_index(session);
  if (!snapshot) {
    Error error = snapshot.take_error();
    // The download's own hint speaks of --mirror, which is the CUDA folder's setting.
    return make_error("cannot read the PyTorch index: " + error.message,
                      "check CUDAENV_TORCH_INDEX and the network, or set CUDAENV_TORCH_OFFLINE=1 to skip it; the "
                      "CUDA releases were updated");
  }
  std::string newest = snapshot->torch.empty() ? "" : "; newest " + snapshot->torch.back().version.str();
  std::printf("%zu torch releases at %s%s\n", snapshot->torch.size(), terminal_safe(snapshot->base).c_str(), newest.c_str());
  return ok_status();
}

// Reads the folder's list of releases again, whatever the cache holds, and the PyTorch index.
Result<int> run_update(const Session& session, const UpdateOptions& options) {
  CUDAENV_TRY_ASSIGN(auto folder, remote_folder(session, options.mirror));
  Status torch = update_torch_index(session);
  const ReleaseCatalog& shipped = folder.shipped;
  const std::string& base = folder.base;
  CUDAENV_TRY_ASSIGN(auto fetch, fetch_settings(session.env, session.fs, false));
  DiscoveredReleases discovered = discover_releases(shipped, base, session.layout.cache_dir(), ListFreshness::refresh, fetch);
  if (!discovered.warning.empty()) print_warning(discovered.warning);
  if (discovered.unreadable) {
    return make_error("cannot read the list of releases at " + base + ": " + discovered.unreadable->message,
                      discovered.unreadable->hint.empty() ? "check the URL and the network; until then cudaenv uses "
                                                            "the releases it knows"
                                                          : discovered.unreadable->hint);
  }
  const std::vector<Release>& found = discovered.catalog.releases;
  std::vector<std::string> unknown;
  for (const Release& release : found) {
    if (!shipped.find(release.label)) unknown.push_back(release.label);
  }
  std::printf("%zu CUDA releases at %s (from its %s)%s\n", found.size(), base.c_str(), discovered.origin.c_str(),
              found.empty() ? "" : ("; newest " + found.front().label).c_str());
  if (!unknown.empty()) {
    std::printf("not in this cudaenv's list (installed on their archive checksums): %s\n", join(unknown, ", ").c_str());
  }
  if (!torch) return torch.take_error();
  return 0;
}

}  // namespace

CommandHandler configure_install(CLI::App& command) {
  auto options = std::make_shared<InstallOptions>();
  command.add_option("version", options->versions, "CUDA versions (12.1 = newest 12.1.z); default: cuda.toml's");
  command.add_option("--profile", options->profile, "minimal (default), torch or full");
  command.add_option("--component", options->components, "Add a redist component, e.g. libcurand (repeatable)");
  add_fetch_options(command, options->mirror, options->source, options->index_url, options->skip_manifest_pin);
  command.add_option("--jobs,-j", options->jobs, "Parallel downloads (default " + std::to_string(kDefaultJobs) + ")");
  command.add_flag("--force", options->force, "Reinstall even when installed");
  command.add_option("--platform", options->platform, "linux-x86_64 or linux-sbsa (default: this machine)");
  command.add_flag("--keep-downloads", options->keep_downloads, "Keep the archives in CUDAENV_ROOT/cache");
  add_progress_option(command, options->no_progress);
  command.add_option("--library", options->libraries,
                     "Add a library to the toolkit: cudnn or nccl, e.g. cudnn@9.10 (repeatable)");
  command.add_flag("--locked", options->locked,
                   "Install exactly what cuda.lock holds (from --mirror / --index-url where given); fail if cuda.toml asks "
                   "otherwise");
  command.add_flag("--frozen", options->frozen, "Install what cuda.lock holds without comparing it to cuda.toml; never write it")
      ->excludes("--locked");
  return [options](const Setup& setup) { return run_install(setup.session(), *options); };
}

CommandHandler configure_uninstall(CLI::App& command) {
  auto options = std::make_shared<UninstallOptions>();
  command.add_option("version", options->version, "Installed or registered version")->required();
  command.add_flag("--yes,-y", options->yes, "Do not ask (required when stdin is not a terminal)");
  return [options](const Setup& setup) { return run_uninstall(setup.session(), *options); };
}

CommandHandler configure_list_remote(CLI::App& command) {
  auto options = std::make_shared<ListRemoteOptions>();
  command.add_option("prefix", options->prefix, "Only versions starting with this, e.g. 12 or 12.4");
  command.add_option("--mirror", options->mirror, "List what this mirror's index holds (http, https, file://); CUDAENV_MIRROR");
  command.add_option("--source", options->source, "redist (default) or pypi: list the package index's CUDA wheels");
  command.add_option("--index-url", options->index_url, "Package index for --source pypi (default as pip's)");
  command.add_flag("--bare", options->bare, "Only the versions, one per line (for completions)");
  command.add_flag("--json", options->json, "Machine-readable output");
  command.add_flag("--refresh", options->refresh, "Read the folder's list of releases again (it is cached a day)");
  command
      .add_flag("--offline", options->offline, "No network: the cached list of any age, else the shipped one (for completions)")
      ->excludes("--refresh");
  return [options](const Setup& setup) { return run_list_remote(setup.session(), *options); };
}

CommandHandler configure_update(CLI::App& command) {
  auto options = std::make_shared<UpdateOptions>();
  command.add_option("--mirror", options->mirror, "The redist folder to read (http, https, file://); CUDAENV_MIRROR");
  return [options](const Setup& setup) { return run_update(setup.session(), *options); };
}

}  // namespace cudaenv
