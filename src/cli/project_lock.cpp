#include "cli/project_lock.h"

#include <algorithm>
#include <memory>

#include "cli/library_source.h"
#include "cli/redist_source.h"
#include "install/checked_manifest.h"
#include "install/plan.h"
#include "util/atomic_file.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

LockedArchive locked_component(const PlannedArchive& archive, const std::string& platform, const std::string& base) {
  return LockedArchive{archive.component, platform, archive.version, base + archive.artifact.relative_path,
                       archive.artifact.sha256, archive.artifact.size, "", "", ""};
}

LockedArchive locked_library(const PlannedLibrary& library, const std::string& platform) {
  return LockedArchive{library.name,    platform,       library.archive.version, library.url,
                       library.archive.artifact.sha256, library.archive.artifact.size,
                       library.release, library.source, library.source_sha256};
}

PlannedLibrary planned_library(const LockedArchive& locked) {
  std::string file = locked.url.substr(locked.url.rfind('/') + 1);
  return PlannedLibrary{locked.name,
                        locked.release,
                        PlannedArchive{locked.name, locked.version, RedistArtifact{file, locked.sha256, locked.size}},
                        locked.url,
                        locked.source,
                        locked.source_sha256};
}

int major_of(const std::string& label) {
  auto version = parse_version(label);
  return version ? version->major() : 0;
}

const char* const kRelockHint =
    "run `cudaenv lock` to lock what is offered now (and review the change to cuda.lock), or install without --locked";

}  // namespace

LockRequest lock_request_of(const CudaToml& toml) {
  return LockRequest{toml.version, toml.profile.value_or(""), toml.components, toml.libraries};
}

std::filesystem::path lock_path_of(const CudaToml& toml) { return toml.path.parent_path() / kLockFileName; }

Result<std::optional<CudaLock>> read_lock_file(const std::filesystem::path& path) {
  RealFileSystem disk;
  if (disk.kind(path) == EntryKind::missing) return std::optional<CudaLock>{};
  auto text = disk.read_file(path);
  if (!text) return text.take_error();
  auto lock = parse_lock(path, *text);
  if (!lock) return lock.take_error();
  return std::optional<CudaLock>(std::move(*lock));
}

Status write_lock_file(const std::filesystem::path& path, const CudaLock& lock) {
  return write_file_atomically(path, render_lock(lock));
}

Result<std::vector<PlannedLibrary>> resolve_libraries(const Session& session, const std::vector<std::string>& specs,
                                                      const std::string& label, const std::string& platform,
                                                      const LockSources& sources, ProgressReporter& progress) {
  std::vector<PlannedLibrary> out;
  LibraryContext context{session.layout, session.env, sources.base_url, platform, major_of(label),
                         sources.skip_manifest_pin};
  for (const std::string& text : specs) {
    auto spec = parse_library_spec(text, "library");
    if (!spec) return spec.take_error();
    if (std::any_of(out.begin(), out.end(), [&](const PlannedLibrary& p) { return p.name == spec->name; })) continue;
    auto library = resolve_library(*spec, context, progress);
    if (!library) return library.take_error();
    out.push_back(std::move(*library));
  }
  return out;
}

Result<CudaLock> resolve_lock(const Session& session, const ReleaseCatalog& releases, const ProfileCatalog& profiles,
                              const LockRequest& request, const std::vector<std::string>& platforms,
                              const LockSources& sources, ProgressReporter& progress) {
  ReleaseSource source(session, releases, sources.base_url);
  auto label = source.resolve(request.version);
  if (!label) return label.take_error();
  std::string profile = request.profile.empty() ? profiles.default_profile : request.profile;
  CUDAENV_TRY(check_release_label(*label));
  CUDAENV_TRY(check_profile(profiles, *label, profile));
  auto text = fetch_checked_manifest(releases, sources.base_url, *label, sources.skip_manifest_pin, DownloadOptions{},
                                     progress);
  if (!text) return text.take_error();
  auto manifest = parse_redist_manifest(*text, manifest_url(sources.base_url, *label));
  if (!manifest) return manifest.take_error();
  CudaLock lock;
  lock.request = request;
  lock.label = *label;
  lock.profile = profile;
  lock.platforms = platforms;
  lock.source = sources.base_url;
  lock.manifest_sha256 = sha256_hex(*text);
  for (const std::string& platform : platforms) {
    auto plan = plan_install(*manifest, profiles, PlanRequest{*label, profile, request.components, platform});
    if (!plan) return plan.take_error();
    for (const PlannedArchive& archive : *plan) lock.components.push_back(locked_component(archive, platform, sources.base_url));
    auto libraries = resolve_libraries(session, request.libraries, *label, platform, sources, progress);
    if (!libraries) return libraries.take_error();
    for (const PlannedLibrary& library : *libraries) lock.libraries.push_back(locked_library(library, platform));
  }
  normalise_lock(lock);
  return lock;
}

Result<InstallRequest> install_request_from_lock(const CudaLock& lock, const std::string& platform,
                                                 const std::filesystem::path& lock_path) {
  if (std::find(lock.platforms.begin(), lock.platforms.end(), platform) == lock.platforms.end()) {
    return make_error(lock_path.string() + " locks CUDA " + lock.label + " for " + join(lock.platforms, ", ") +
                          ", not for " + platform,
                      "run `cudaenv lock --platform " + platform + "` (with the other platforms too) to add it");
  }
  InstallRequest request;
  request.label = lock.label;
  request.profile = lock.profile;
  request.platform = platform;
  request.base_url = lock.source;
  std::vector<LockedArchive> locked = lock.components_for(platform);
  for (const LockedArchive& archive : locked) request.components.push_back(archive.name);
  for (const LockedArchive& archive : lock.libraries_for(platform)) request.libraries.push_back(planned_library(archive));
  std::string base = lock.source, path = lock_path.string();
  request.check_plan = [locked, platform, base, path](const std::vector<PlannedArchive>& plan, const std::string&) -> Status {
    std::vector<LockedArchive> now;
    for (const PlannedArchive& archive : plan) now.push_back(locked_component(archive, platform, base));
    std::vector<std::string> differences = archive_differences(locked, now);
    if (differences.empty()) return ok_status();
    return make_error("the manifest at " + base + " no longer gives what " + path + " locks:\n  " +
                          join(differences, "\n  "),
                      kRelockHint);
  };
  return request;
}

std::vector<std::string> installed_differences(const std::filesystem::path& home, const CudaLock& lock,
                                               const std::string& platform) {
  auto installed = installed_archives(home);
  if (!installed) return {"it has no readable install receipt"};
  std::vector<std::string> out;
  auto compare = [&](const std::vector<LockedArchive>& locked, bool library) {
    for (const LockedArchive& archive : locked) {
      bool found = std::any_of(installed->begin(), installed->end(), [&](const ReceiptArchive& have) {
        return have.library == library && have.name == archive.name && have.sha256 == archive.sha256;
      });
      if (!found) out.push_back(archive.name + " " + archive.version + " is not installed as locked");
    }
    size_t count = std::count_if(installed->begin(), installed->end(), [&](const ReceiptArchive& have) { return have.library == library; });
    if (count > locked.size()) out.push_back("it has " + std::string(library ? "libraries" : "components") + " the lock does not list");
  };
  compare(lock.components_for(platform), false);
  compare(lock.libraries_for(platform), true);
  return out;
}

}  // namespace cudaenv
