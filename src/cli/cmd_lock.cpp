// lock: write cuda.lock from cuda.toml (--check compares them, --hash prints a CI cache key).
#include <algorithm>
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "lock/project_lock.h"
#include "mirror/redist_source.h"
#include "util/output.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

struct LockOptions {
  std::vector<std::string> platforms;
  std::string mirror;
  std::string source;
  std::string index_url;
  bool skip_manifest_pin = false;
  bool check = false;
  bool hash = false;
};

Result<CudaToml> project_file(const Session& session) {
  CUDAENV_TRY_ASSIGN(auto project, load_project(session.fs, session.cwd));
  if (!project) {
    return make_error("no cuda.toml in " + session.cwd.string() + " or above",
                      "run `cudaenv use 12.4` to pin this project, then `cudaenv lock`", ErrorKind::usage);
  }
  if (project->version.empty() || !parse_version(project->version)) {
    return make_error(project->path.string() + " pins no CUDA version that can be installed",
                      "set [cuda] version to a version such as \"12.4\" (`cudaenv use 12.4`)", ErrorKind::usage);
  }
  return std::move(*project);
}

Result<CudaLock> existing_lock(const CudaToml& toml) {
  fs::path path = lock_path_of(toml);
  CUDAENV_TRY_ASSIGN(auto file, read_lock_file(path));
  if (!file) return make_error("no " + path.string(), "run `cudaenv lock` to write it, then commit it");
  return std::move(file->lock);
}

// Exit 1, naming each difference, when the lock no longer says what cuda.toml asks for.
Result<int> check_lock(const CudaToml& toml, InstallSource source_kind) {
  CUDAENV_TRY_ASSIGN(auto lock, existing_lock(toml));
  std::vector<std::string> differences = request_differences(lock.request, lock_request_of(toml, source_kind));
  if (!differences.empty()) {
    return make_error(lock_path_of(toml).string() + " does not match " + toml.path.string() + ": " + join(differences, "; "),
                      "run `cudaenv lock` to update it, and commit both");
  }
  std::printf("%s matches %s (CUDA %s)\n", lock_path_of(toml).string().c_str(), toml.path.string().c_str(), lock.label.c_str());
  return 0;
}

Result<int> print_hash(const CudaToml& toml, const std::string& platform) {
  CUDAENV_TRY_ASSIGN(auto lock, existing_lock(toml));
  CUDAENV_TRY_ASSIGN(auto key, lock_cache_key(lock, platform));
  std::printf("%s\n", key.c_str());
  return 0;
}

Result<int> run_lock(const Session& session, const LockOptions& options) {
  CUDAENV_TRY_ASSIGN(auto toml, project_file(session));
  CUDAENV_TRY_ASSIGN(auto source_kind, install_source(options.source, session.env, session.fs, session.cwd));
  if (options.check) return check_lock(toml, source_kind);
  if (options.hash) {
    if (options.platforms.size() > 1) return make_error("--hash keys one platform", "pass one --platform", ErrorKind::usage);
    CUDAENV_TRY_ASSIGN(auto platform, host_platform(options.platforms.empty() ? "" : options.platforms.front()));
    return print_hash(toml, platform);
  }
  CUDAENV_TRY_ASSIGN(auto catalogs, load_redist_catalogs(options.mirror, session.data, session.env));
  std::vector<std::string> platforms;
  for (const std::string& option : options.platforms) {
    CUDAENV_TRY_ASSIGN(auto platform, host_platform(option));
    platforms.push_back(platform);
  }
  fs::path path = lock_path_of(toml);
  CUDAENV_TRY_ASSIGN(auto previous_file, read_lock_file(path));
  std::optional<CudaLock> previous;
  if (previous_file) previous = std::move(previous_file->lock);
  if (platforms.empty() && previous) platforms = previous->platforms;
  if (platforms.empty()) {
    CUDAENV_TRY_ASSIGN(auto host, host_platform(""));
    platforms.push_back(host);
  }
  ProgressReporter progress(stderr, false);
  CUDAENV_TRY_ASSIGN(auto fetch, fetch_settings(session.env, session.fs, reads_package_index(source_kind, toml.libraries)));
  LockSources sources = lock_sources(session, catalogs.base_url, options.index_url, options.skip_manifest_pin, std::move(fetch));
  CUDAENV_TRY_ASSIGN(auto lock, resolve_lock(catalogs.releases, catalogs.profiles, lock_request_of(toml, source_kind), platforms,
                                             sources, progress));
  if (previous && *previous == lock) {
    std::printf("%s is up to date (CUDA %s)\n", path.string().c_str(), lock.label.c_str());
    return 0;
  }
  CUDAENV_TRY(write_lock_file(path, lock));
  std::vector<std::string> libraries;
  for (const LockedArchive& library : lock.libraries_for(platforms.front()))
    libraries.push_back(library.archive.name + " " + library.archive.version);
  std::printf("%s %s: CUDA %s for %s, %zu components%s\n", previous ? "updated" : "wrote", path.string().c_str(),
              lock.label.c_str(), join(lock.platforms, ", ").c_str(), lock.components_for(platforms.front()).size(),
              libraries.empty() ? "" : (", " + join(libraries, ", ")).c_str());
  return 0;
}

}  // namespace

CommandHandler configure_lock(CLI::App& command) {
  auto options = std::make_shared<LockOptions>();
  command.add_option("--platform", options->platforms,
                     "Lock for this platform (repeatable; default: the lock's platforms, else this machine's)");
  add_fetch_options(command, options->mirror, options->source, options->index_url, options->skip_manifest_pin);
  command.add_flag("--check", options->check, "Exit 1 when cuda.lock no longer matches cuda.toml (no network)");
  command.add_flag("--hash", options->hash, "Print a cache key for CI: label, platform, components and libraries")
      ->excludes("--check");
  command.footer("Example: cudaenv lock; git add cuda.toml cuda.lock; in CI: cudaenv install --locked");
  return [options](const Setup& setup) { return run_lock(setup.session(), *options); };
}

}  // namespace cudaenv
