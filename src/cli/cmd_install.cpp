// install, uninstall, list-remote: toolkits from NVIDIA's redist archives or CUDA wheels (src/install/).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/redist_source.h"
#include "cli/session.h"
#include "cli/torch_index_refresh.h"
#include "install/installer.h"
#include "install/package_index.h"
#include "install/plan.h"
#include "install/redist_files.h"
#include "store/rehash.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

struct InstallOptions {
  std::vector<std::string> versions;
  std::string profile;
  std::vector<std::string> components;
  std::string mirror;
  int jobs = 4;
  bool force = false;
  std::string platform;
  bool keep_downloads = false;
  bool skip_manifest_pin = false;
  std::string source;
  std::string index_url;
};

// The versions to install and what to install of them: the arguments, else the nearest cuda.toml.
Status apply_project(InstallOptions& options, const Session& session) {
  if (!options.versions.empty()) return ok_status();
  auto project = load_project(session.fs, session.cwd);
  if (!project) return project.take_error();
  if (!*project) {
    return make_error("no VERSION given and no cuda.toml in " + session.cwd.string() + " or above",
                      "run `cudaenv install 12.1`, or `cudaenv use 12.1` to pin this project first", 2);
  }
  const CudaToml& toml = **project;
  if (toml.version.empty()) {
    return make_error(toml.path.string() + " pins no CUDA version",
                      "run `cudaenv install 12.1`, or `cudaenv use 12.1` to pin this project first", 2);
  }
  if (!parse_version(toml.version)) {
    return make_error(toml.path.string() + " asks for '" + toml.version + "', which cannot be installed",
                      "only CUDA versions such as 12.1 can be installed; `cudaenv add` registers other toolkits");
  }
  print_note("installing what " + toml.path.string() + " asks for");
  options.versions.push_back(toml.version);
  if (options.profile.empty() && toml.profile) options.profile = *toml.profile;
  options.components.insert(options.components.end(), toml.components.begin(), toml.components.end());
  return ok_status();
}

std::string summary(const InstallResult& result) {
  std::uint64_t bytes = 0;
  std::vector<std::string> parts;
  for (const PlannedFile& file : result.plan.files) {
    parts.push_back(file.component + " " + file.version);
    bytes += file.size;
  }
  return join(parts, ", ") + "; " + human_bytes(bytes) + " downloaded";
}

// Turns a full label into versions/<label>, reporting how it went.
Status install_one(const Session& session, const ProfileCatalog& profiles, const InstallRequest& request,
                   const PlanFiles& plan_files, ProgressReporter& progress) {
  auto started = std::chrono::steady_clock::now();
  auto rehash = [&]() -> Status {
    auto rehashed = rehash_after_change(session.layout);
    if (!rehashed) return rehashed.take_error();
    return ok_status();
  };
  auto result = install_release(session.layout, profiles, request, plan_files, progress, rehash);
  if (!result) return result.take_error();
  if (result->already_installed) {
    print_note("CUDA " + request.label + " is already installed in " + result->home.string() + " (--force reinstalls it)");
    return ok_status();
  }
  std::string took = seconds_text(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  std::string from = result->plan.source == "pypi" ? " from " + result->plan.origin : "";
  print_note("installed CUDA " + request.label + from + " in " + took + " -> " + result->home.string() + " (" +
             summary(*result) + ")");
  return ok_status();
}

Result<int> run_install(const Session& session, InstallOptions options) {
  if (options.jobs < 1) return make_error("--jobs must be at least 1", "e.g. --jobs 4", 2);
  CUDAENV_TRY(apply_project(options, session));
  auto releases = load_release_catalog();
  if (!releases) return releases.take_error();
  auto profiles = load_profile_catalog();
  if (!profiles) return profiles.take_error();
  auto platform = host_platform(options.platform);
  if (!platform) return platform.take_error();
  auto source = install_source(options.source, session);
  if (!source) return source.take_error();
  ProgressReporter progress(stderr, stderr_wants_colour());
  std::string profile = options.profile.empty() ? profiles->default_profile : options.profile;
  auto request_for = [&](const std::string& label) {
    return InstallRequest{label, profile, options.components, *platform, options.jobs, options.force, options.keep_downloads};
  };
  if (*source == "pypi") {
    auto index_url = package_index_url(options.index_url, session);
    if (!index_url) return index_url.take_error();
    PackageIndex index(*index_url);
    for (const std::string& version : options.versions) {
      auto label = resolve_wheel_label(index, *profiles, version, WheelRequest{{}, profile, options.components, *platform});
      if (!label) return label.take_error();
      CUDAENV_TRY(install_one(session, *profiles, request_for(*label), plan_wheel_files(index, *profiles), progress));
    }
    return 0;
  }
  auto base = redist_base_url(options.mirror, session, *releases);
  if (!base) return base.take_error();
  RedistFolder folder{*base, skip_manifest_pin(options.skip_manifest_pin, session)};
  ReleaseSource releases_at(session, *releases, *base);
  for (const std::string& version : options.versions) {
    auto label = releases_at.resolve(version);
    if (!label) return label.take_error();
    CUDAENV_TRY(install_one(session, *profiles, request_for(*label),
                            plan_redist_files(*releases, *profiles, folder, progress), progress));
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
                      "name the one to remove, e.g. cudaenv uninstall " + matching.front(), 2);
  }
  for (const Toolkit& toolkit : session.toolkits()) {
    if (toolkit.name == version && toolkit.source == ToolkitSource::system_root) {
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
  auto toolkit = find_removable(session, options.version);
  if (!toolkit) return toolkit.take_error();
  fs::path entry = session.layout.versions_dir() / toolkit->name;
  if (toolkit->registered) {
    std::error_code ec;
    fs::remove(entry, ec);
    if (ec) return make_error("cannot remove " + entry.string() + ": " + ec.message());
    print_note("unregistered CUDA " + toolkit->name + " (" + toolkit->home.string() + " itself was left alone)");
  } else {
    if (!options.yes) {
      if (!::isatty(0)) {
        return make_error("refusing to remove CUDA " + toolkit->name + " without confirmation",
                          "stdin is not a terminal: pass --yes to remove " + entry.string(), 2);
      }
      if (!confirmed("remove CUDA " + toolkit->name + " (" + entry.string() + ")?")) {
        print_note("nothing removed");
        return 1;
      }
    }
    CUDAENV_TRY(remove_installed(session.layout, toolkit->name));
    print_note("removed CUDA " + toolkit->name + " (" + entry.string() + ")");
  }
  auto rehashed = rehash_after_change(session.layout);
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
  auto shipped = load_release_catalog();
  if (!shipped) return shipped.take_error();
  auto base = redist_base_url(mirror, session, *shipped);
  if (!base) return base.take_error();
  return RemoteFolder{std::move(*shipped), std::move(*base)};
}

// The toolkit releases the package index's cuda-toolkit metapackage offers, newest first.
Result<int> run_list_remote_pypi(const Session& session, const ListRemoteOptions& options,
                                 const std::optional<Version>& prefix) {
  if (options.offline) return 0;  // an index's pages are not cached: offline (completions) lists nothing
  auto index_url = package_index_url(options.index_url, session);
  if (!index_url) return index_url.take_error();
  PackageIndex index(*index_url);
  auto files = index.files("cuda-toolkit");
  if (!files) return files.take_error();
  std::vector<Toolkit> toolkits = session.toolkits();
  std::vector<std::string> json_rows;
  for (const ToolkitRelease& release : toolkit_releases(*files)) {
    Version version = *parse_version(release.label);
    if (prefix && !version_matches(*prefix, version)) continue;
    bool installed = std::any_of(toolkits.begin(), toolkits.end(), [&](const Toolkit& t) { return t.name == release.label; });
    std::string note = version.major() < 13 ? "no nvcc wheel (use --source redist)" : installed ? "installed" : "";
    if (options.bare) {
      if (version.major() >= 13) std::printf("%s\n", release.label.c_str());
    } else if (options.json) {
      json_rows.push_back("{\"version\": " + json_quote(release.label) + ", \"installed\": " + (installed ? "true" : "false") +
                          ", \"installable\": " + (version.major() >= 13 ? "true" : "false") +
                          ", \"source\": " + json_quote(index.url()) + "}");
    } else {
      std::string line = std::string(installed ? "* " : "  ") + release.label;
      if (!note.empty()) line += std::string(release.label.size() < 8 ? 10 - release.label.size() : 2, ' ') + note;
      std::printf("%s\n", line.c_str());
    }
  }
  if (options.json) std::printf("[%s]\n", join(json_rows, ",\n ").c_str());
  return 0;
}

Result<int> run_list_remote(const Session& session, const ListRemoteOptions& options) {
  {
    auto source = install_source(options.source, session);
    if (!source) return source.take_error();
    std::optional<Version> prefix;
    if (!options.prefix.empty() && !(prefix = parse_version(options.prefix))) {
      return make_error("'" + options.prefix + "' is not a version prefix", "e.g. cudaenv list-remote 13", 2);
    }
    if (*source == "pypi") return run_list_remote_pypi(session, options, prefix);
  }
  auto folder = remote_folder(session, options.mirror);
  if (!folder) return folder.take_error();
  ReleaseSource source(session, folder->shipped, folder->base);
  const DiscoveredReleases& discovered =
      source.discovered(options.refresh   ? ListFreshness::refresh
                        : options.offline ? ListFreshness::offline
                                          : ListFreshness::cache_ok);
  std::optional<Version> prefix;
  if (!options.prefix.empty() && !(prefix = parse_version(options.prefix))) {
    return make_error("'" + options.prefix + "' is not a version prefix", "e.g. cudaenv list-remote 12", 2);
  }
  std::vector<Toolkit> toolkits = session.toolkits();
  auto installed = [&](const std::string& label) {
    return std::any_of(toolkits.begin(), toolkits.end(), [&](const Toolkit& t) { return t.name == label; });
  };
  std::vector<std::string> json_rows;
  for (const Release& release : discovered.catalog.releases) {
    if (prefix && !version_matches(*prefix, release.version)) continue;
    if (options.bare) {
      std::printf("%s\n", release.label.c_str());
    } else if (options.json) {
      json_rows.push_back("{\"version\": " + json_quote(release.label) + ", \"release_date\": " +
                          (release.date ? json_quote(*release.date) : std::string("null")) +
                          ", \"installed\": " + (installed(release.label) ? "true" : "false") +
                          ", \"manifest_pinned\": " + (release.sha256 ? "true" : "false") +
                          ", \"source\": " + json_quote(discovered.origin) + "}");
    } else {
      char row[96];
      std::snprintf(row, sizeof row, "%s %-8s %-10s  %s", installed(release.label) ? "*" : " ", release.label.c_str(),
                    terminal_safe(release.date.value_or("")).c_str(), installed(release.label) ? "installed" : "");
      std::string line = row;
      line.erase(line.find_last_not_of(' ') + 1);
      std::printf("%s\n", line.c_str());
    }
  }
  if (options.json) std::printf("[%s]\n", join(json_rows, ",\n ").c_str());
  return 0;
}

struct UpdateOptions {
  std::string mirror;
};

// The PyTorch index too, unless the user turned it off: `update` is the one "refresh what cudaenv
// learns from the network" command.
Status update_torch_index(const Session& session) {
  if (env_get(session.env, "CUDAENV_TORCH_OFFLINE").value_or("").size()) return ok_status();
  auto snapshot = refresh_torch_index(session);
  if (!snapshot) {
    Error error = snapshot.take_error();
    // The download's own hint speaks of --mirror, which is the CUDA folder's setting.
    return make_error("cannot read the PyTorch index: " + error.message,
                      "check CUDAENV_TORCH_INDEX and the network, or set CUDAENV_TORCH_OFFLINE=1 to skip it; the "
                      "CUDA releases were updated");
  }
  std::string newest = snapshot->torch.empty() ? "" : "; newest " + snapshot->torch.back().version.str();
  std::printf("%zu torch releases at %s%s\n", snapshot->torch.size(), terminal_safe(snapshot->base).c_str(),
              newest.c_str());
  return ok_status();
}

// Reads the folder's list of releases again, whatever the cache holds, and the PyTorch index.
Result<int> run_update(const Session& session, const UpdateOptions& options) {
  auto folder = remote_folder(session, options.mirror);
  if (!folder) return folder.take_error();
  Status torch = update_torch_index(session);
  const ReleaseCatalog& shipped = folder->shipped;
  const std::string& base = folder->base;
  DiscoveredReleases discovered =
      discover_releases(shipped, base, session.layout.cache_dir(), ListFreshness::refresh);
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
  command.add_option("--mirror", options->mirror, "Base URL of the redist folder (http, https, file://); CUDAENV_MIRROR");
  command.add_option("--jobs,-j", options->jobs, "Parallel downloads (default 4)");
  command.add_flag("--force", options->force, "Reinstall even when installed");
  command.add_option("--platform", options->platform, "linux-x86_64 or linux-sbsa (default: this machine)");
  command.add_flag("--keep-downloads", options->keep_downloads, "Keep the archives in CUDAENV_ROOT/cache");
  command.add_flag("--skip-manifest-pin", options->skip_manifest_pin,
                   "Accept a manifest that differs from its pinned sha256 (private mirrors); CUDAENV_SKIP_MANIFEST_PIN=1");
  command.add_option("--source", options->source,
                     "redist (NVIDIA's archives, default) or pypi (NVIDIA's CUDA 13 wheels); CUDAENV_SOURCE, cuda.toml");
  command.add_option("--index-url", options->index_url,
                     "Package index for --source pypi; default PIP_INDEX_URL, pip's index-url, https://pypi.org/simple");
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
  command.add_flag("--offline", options->offline, "No network: the cached list of any age, else the shipped one (for completions)")
      ->excludes("--refresh");
  return [options](const Setup& setup) { return run_list_remote(setup.session(), *options); };
}

CommandHandler configure_update(CLI::App& command) {
  auto options = std::make_shared<UpdateOptions>();
  command.add_option("--mirror", options->mirror, "The redist folder to read (http, https, file://); CUDAENV_MIRROR");
  return [options](const Setup& setup) { return run_update(setup.session(), *options); };
}

}  // namespace cudaenv
