// mirror sync / mirror verify: offline mirrors in NVIDIA's redist layout (src/mirror/).
#include <algorithm>
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "core/settings_table.h"
#include "mirror/mirror_store.h"
#include "mirror/mirror_verify.h"
#include "mirror/redist_source.h"
#include "util/file_system.h"
#include "util/output.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

namespace fs = std::filesystem;

struct SyncOptions {
  std::vector<std::string> versions;
  std::string to;
  std::string profile;
  std::vector<std::string> components;
  std::vector<std::string> platforms;
  std::string mirror;
  int jobs = kDefaultJobs;
  bool skip_manifest_pin = false;
  bool no_progress = false;
};

std::uint64_t total_size(const MirrorRelease& release) {
  std::uint64_t bytes = release.manifest.archive.size;
  for (const MirrorFile& file : release.files) bytes += file.archive.size;
  return bytes;
}

// fs::absolute throws on an empty path; a folder argument is checked first.
Result<fs::path> mirror_folder(const std::string& folder, const char* what) {
  if (folder.empty())
    return make_error(std::string(what) + " is empty", "give the mirror folder, e.g. /srv/cuda-redist", ErrorKind::usage);
  std::error_code ec;
  fs::path dir = fs::absolute(folder, ec);
  if (ec) return make_error("cannot use " + folder + " as the mirror folder: " + ec.message());
  return dir;
}

Result<int> run_sync(const Session& session, SyncOptions options) {
  if (options.jobs < 1) return make_error("--jobs must be at least 1", "e.g. --jobs 4", ErrorKind::usage);
  CUDAENV_TRY_ASSIGN(auto releases, load_release_catalog(session.data));
  CUDAENV_TRY_ASSIGN(auto profiles, load_profile_catalog(session.data));
  // The upstream is --mirror or NVIDIA, never CUDAENV_MIRROR: on a cluster that names the
  // local mirror this command fills.
  CUDAENV_TRY_ASSIGN(auto base, redist_base_url(mirror_setting(options.mirror, {}, releases.default_base)));
  if (options.platforms.empty()) {
    CUDAENV_TRY_ASSIGN(auto platform, host_platform(""));
    options.platforms.push_back(platform);
  }
  CUDAENV_TRY_ASSIGN(auto absolute, mirror_folder(options.to, "--to"));
  fs::path dir = absolute;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error("cannot create " + dir.string() + ": " + ec.message(), "pass a writable folder to --to");
  auto lock = FileLock::acquire(dir / ".cudaenv-mirror.lock",
                                [&] { print_note("another cudaenv is syncing into " + dir.string() + "; waiting for it"); });
  if (!lock) return lock.take_error();
  CUDAENV_TRY_ASSIGN(auto held, read_mirror_index(dir));

  ProgressReporter progress(stderr, progress_bars(options.no_progress, session.env));
  std::vector<std::string> labels;
  CUDAENV_TRY_ASSIGN(auto fetch, fetch_settings(session.env, session.fs, false));
  ReleaseSource source(session.layout.cache_dir(), releases, base, fetch);
  for (const std::string& version : options.versions) {
    CUDAENV_TRY_ASSIGN(auto label, source.resolve(version));
    SyncRequest request{.label = label,
                        .profile = options.profile.empty() ? profiles.default_profile : options.profile,
                        .components = options.components,
                        .platforms = options.platforms,
                        .base_url = base,
                        .dir = dir,
                        .jobs = options.jobs,
                        .skip_manifest_pin = is_on(skip_manifest_pin_setting(options.skip_manifest_pin, session.env)),
                        .fetch = fetch};
    CUDAENV_TRY_ASSIGN(auto release, sync_release(releases, profiles, request, held, progress));
    print_note("synced CUDA " + label + " into " + dir.string() + " (" + std::to_string(release.files.size()) + " archives for " +
               join(release.platforms(), ", ") + ", " + human_bytes(total_size(release)) + ")");
    merge_release(held, std::move(release));
    CUDAENV_TRY(write_mirror_index(dir, held));
    labels.push_back(label);
  }
  print_note("install from it with `cudaenv install " + labels.front() + " --mirror file://" + dir.string() + "`, or serve " +
             dir.string() + " over http");
  return 0;
}

Result<int> run_verify(const std::string& folder) {
  CUDAENV_TRY_ASSIGN(auto absolute, mirror_folder(folder, "FOLDER"));
  fs::path dir = absolute;
  std::error_code ec;
  if (!fs::exists(dir / kMirrorIndexName, ec)) {
    return make_error(dir.string() + " has no " + kMirrorIndexName + ", so it is not a mirror cudaenv made",
                      "make one with `cudaenv mirror sync VERSION --to " + dir.string() + "`");
  }
  CUDAENV_TRY_ASSIGN(auto index, read_mirror_index(dir));
  CUDAENV_TRY_ASSIGN(auto report, verify_mirror(dir, index));
  std::vector<std::string> broken;
  for (const MirrorProblem& problem : report.problems) {
    print_warning(problem.path.string() + " " + problem.what + " (CUDA " + problem.label + "); fix: cudaenv mirror sync " +
                  problem.label + " --to " + posix_quote(dir.string()));
    if (std::find(broken.begin(), broken.end(), problem.label) == broken.end()) broken.push_back(problem.label);
  }
  if (!broken.empty()) {
    return make_error(std::to_string(report.problems.size()) + " of " + std::to_string(report.files) + " files in " +
                          dir.string() + " are missing or damaged",
                      "sync them again: cudaenv mirror sync " + join(broken, " ") + " --to " + posix_quote(dir.string()));
  }
  std::printf("%s: %zu releases, %zu files, %s verified\n", dir.string().c_str(), index.releases.size(), report.files,
              human_bytes(report.bytes).c_str());
  return 0;
}

}  // namespace

CommandHandler configure_mirror(CLI::App& command) {
  command.require_subcommand(1);
  auto sync_options = std::make_shared<SyncOptions>();
  CLI::App* sync = command.add_subcommand("sync", "Download releases' manifests and archives into a mirror folder");
  sync->add_option("version", sync_options->versions, "CUDA versions (12.1 = newest 12.1.z)")->required();
  sync->add_option("--to", sync_options->to, "The mirror folder (created; serve it over http or file://)")->required();
  sync->add_option("--profile", sync_options->profile, "minimal (default), torch or full");
  sync->add_option("--component", sync_options->components, "Add a redist component, e.g. libcurand (repeatable)")
      ->allow_extra_args(false);
  sync->add_option("--platform", sync_options->platforms, "linux-x86_64 or linux-sbsa (repeatable; default: this machine)")
      ->allow_extra_args(false);
  sync->add_option("--mirror", sync_options->mirror, "Upstream redist folder URL (default: NVIDIA's)");
  sync->add_option("--jobs,-j", sync_options->jobs, "Parallel downloads (default " + std::to_string(kDefaultJobs) + ")");
  sync->add_flag("--skip-manifest-pin", sync_options->skip_manifest_pin,
                 "Accept manifests that differ from their pinned sha256; CUDAENV_SKIP_MANIFEST_PIN=1");
  add_progress_option(*sync, sync_options->no_progress);
  auto verify_dir = std::make_shared<std::string>();
  CLI::App* verify = command.add_subcommand("verify", "Re-check every file a mirror folder's index names");
  verify->add_option("dir", *verify_dir, "The mirror folder")->required();
  command.footer(
      "A mirror is a plain folder in NVIDIA's redist layout plus cudaenv-mirror.json, its index.\n"
      "Example: cudaenv mirror sync 12.4 12.1 --to /srv/cuda-redist --platform linux-x86_64 --platform linux-sbsa\n"
      "Then, on machines without internet: cudaenv install 12.4 --mirror http://host/cuda-redist/ (nginx) or\n"
      "--mirror file:///srv/cuda-redist (CUDAENV_MIRROR sets it for install and list-remote).");
  sync->footer(
      "Verified archives are kept, partial ones resumed; a plain re-sync of a release repairs whatever\n"
      "of it `cudaenv mirror verify` reports.");
  return [sync, sync_options, verify_dir](const Setup& setup) -> Result<int> {
    if (sync->parsed()) return run_sync(setup.session(), *sync_options);
    return run_verify(*verify_dir);
  };
}

}  // namespace cudaenv
