#include "lock/project_lock.h"

#include <algorithm>
#include <memory>

#include "install/library.h"
#include "install/plan.h"
#include "install/pypi_index.h"
#include "install/redist_files.h"
#include "mirror/redist_source.h"
#include "util/file_system.h"
#include "util/output.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// Where a toolkit's libraries come from: the effects (folder listings, manifests, index pages)
// behind the pure choices of install/library.h.
struct LibraryContext {
  const LockSources& sources;
  std::string index_url;  // the package index NCCL's wheels come from (as pip's), without a trailing '/'
  std::string platform;
  int cuda_major = 0;
};

Result<PlannedLibrary> resolve_cudnn(const LibrarySpec& spec, const LibraryContext& context, ProgressReporter& progress) {
  const LockSources& sources = context.sources;
  CUDAENV_TRY_ASSIGN(auto shipped, load_cudnn_catalog(sources.data));
  CUDAENV_TRY_ASSIGN(auto base, cudnn_base_url(sources.base_url, sources.cudnn_mirror));
  DiscoveredReleases discovered = discover_releases(shipped, base, sources.cache_dir, ListFreshness::cache_ok, sources.fetch);
  if (!discovered.warning.empty()) print_warning(discovered.warning);
  if (discovered.unreadable) {
    progress.note("cannot read the list of cuDNN releases at " + base + " (" + discovered.unreadable->message + "); using the " +
                  discovered.origin);
  }
  std::vector<std::string> labels;
  for (const Release& release : discovered.catalog.releases) labels.push_back(release.label);
  CUDAENV_TRY_ASSIGN(auto release, choose_library_release(spec, labels));
  DownloadOptions options;
  options.fetch = sources.fetch;
  CUDAENV_TRY_ASSIGN(auto text,
                     fetch_checked_manifest(discovered.catalog, base, release, sources.skip_manifest_pin, options, progress));
  std::string url = manifest_url(base, release);
  CUDAENV_TRY_ASSIGN(auto manifest, parse_redist_manifest(text, url));
  CUDAENV_TRY_ASSIGN(auto archive, choose_library_archive(manifest, spec.name, release, context.platform, context.cuda_major));
  return PlannedLibrary{
      .archive = in_folder(base, std::move(archive)), .release = release, .source = url, .source_sha256 = sha256_hex(text)};
}

// The CUDA majors NCCL has wheels of on the index for the platform ("CUDA 12, CUDA 13").
std::vector<std::string> nccl_majors_offered(PackageIndex& index, const std::string& platform) {
  std::vector<std::string> out;
  for (int major = 11; major <= 14; ++major) {
    auto files = index.files(nccl_distribution(major));
    if (files && !wheel_versions(*files, nccl_distribution(major), platform).empty())
      out.push_back("CUDA " + std::to_string(major));
  }
  return out;
}

// NCCL has no redist manifest (NVIDIA's compute/redist/nccl/ holds .txz files without checksums,
// nvidia-redist.md §6.2), so it comes from its PyPI wheels, whose index pages carry sha256s.
Result<PlannedLibrary> resolve_nccl(const LibrarySpec& spec, const LibraryContext& context) {
  PackageIndex index(context.index_url, context.sources.fetch);
  std::string distribution = nccl_distribution(context.cuda_major);
  std::string page = index.url() + "/" + distribution + "/";
  auto files = index.files(distribution);
  if (!files) {
    // Only a missing page means no wheel for this major; an index that cannot be reached is said
    // as it is, without asking it for the other majors' pages.
    if (files.error().kind != ErrorKind::not_on_server) return files.take_error();
    std::vector<std::string> majors = nccl_majors_offered(index, context.platform);
    if (majors.empty()) return files.take_error();
    return make_error("NCCL has no wheel for CUDA " + std::to_string(context.cuda_major) + " on " + index.url() + " (" +
                          distribution + ": " + files.error().message + ")",
                      "it has wheels for " + join(majors, ", ") +
                          ": use a toolkit of one of those majors, or leave nccl out "
                          "of libraries");
  }
  CUDAENV_TRY_ASSIGN(auto wheel, choose_nccl_wheel(*files, spec, context.cuda_major, context.platform, page));
  CUDAENV_TRY_ASSIGN(auto archive, planned_wheel(index, wheel, spec.name, distribution));
  std::string release = archive.version;
  return PlannedLibrary{.archive = std::move(archive), .release = release, .source = page};
}

// One library for a toolkit: cuDNN from its redist folder (the releases, the manifest checked
// against its pin, the archive for the toolkit's major); NCCL from the package index (the
// wheel of nvidia-nccl-cu<major>).
Result<PlannedLibrary> resolve_library(const LibrarySpec& spec, const LibraryContext& context, ProgressReporter& progress) {
  if (spec.name == "nccl") return resolve_nccl(spec, context);
  return resolve_cudnn(spec, context, progress);
}

int major_of(const std::string& label) {
  auto version = parse_version(label);
  return version ? version->major() : 0;
}

Result<std::vector<PlannedLibrary>> resolve_libraries(const std::vector<std::string>& specs, const std::string& label,
                                                      const std::string& platform, const LockSources& sources,
                                                      ProgressReporter& progress) {
  std::vector<PlannedLibrary> out;
  LibraryContext context{sources, "", platform, major_of(label)};
  for (const std::string& text : specs) {
    CUDAENV_TRY_ASSIGN(auto spec, parse_library_spec(text, "library"));
    if (std::any_of(out.begin(), out.end(), [&](const PlannedLibrary& p) { return p.archive.name == spec.name; })) continue;
    if (spec.name == "nccl" && context.index_url.empty()) {
      CUDAENV_TRY_ASSIGN(auto index_url, sources.index_url());
      context.index_url = index_url;
    }
    CUDAENV_TRY_ASSIGN(auto library, resolve_library(spec, context, progress));
    out.push_back(std::move(library));
  }
  return out;
}

}  // namespace

LockRequest lock_request_of(const CudaToml& toml, InstallSource source_kind) {
  return LockRequest{toml.version, toml.profile.value_or(""), toml.components, toml.libraries, source_kind};
}

std::filesystem::path lock_path_of(const CudaToml& toml) { return toml.path.parent_path() / kLockFileName; }

Result<std::optional<LockFile>> read_lock_file(const std::filesystem::path& path) {
  RealFileSystem disk;
  if (disk.kind(path) == EntryKind::missing) return std::optional<LockFile>{};
  CUDAENV_TRY_ASSIGN(auto text, disk.read_file(path));
  CUDAENV_TRY_ASSIGN(auto lock, parse_lock(path, text));
  return std::optional<LockFile>(LockFile{path, std::move(text), std::move(lock)});
}

Status write_lock_file(const std::filesystem::path& path, const CudaLock& lock) {
  return write_file_atomically(path, render_lock(lock));
}

PlanFiles with_libraries(PlanFiles plan_files, const LockSources& sources, ProgressReporter& progress) {
  return [plan_files, sources, &progress](const InstallRequest& request,
                                          const std::function<bool()>& should_stop) -> Result<InstallPlan> {
    auto plan = plan_files(request, should_stop);
    if (!plan) return plan.take_error();
    CUDAENV_TRY_ASSIGN(auto libraries, resolve_libraries(request.libraries, request.label, request.platform, sources, progress));
    for (const PlannedLibrary& library : libraries) plan->files.push_back(library.archive);
    return plan;
  };
}

Result<CudaLock> resolve_lock(const ReleaseCatalog& releases, const ProfileCatalog& profiles, const LockRequest& request,
                              const std::vector<std::string>& platforms, const LockSources& sources, ProgressReporter& progress) {
  std::string profile = request.profile.empty() ? profiles.default_profile : request.profile;
  CudaLock lock;
  lock.request = request;
  lock.profile = profile;
  lock.platforms = platforms;
  std::unique_ptr<PackageIndex> index;  // the pypi source's pages, read once for every platform
  PlanFiles plan_files;
  if (request.source == InstallSource::pypi) {
    CUDAENV_TRY_ASSIGN(auto index_url, sources.index_url());
    index = std::make_unique<PackageIndex>(index_url, sources.fetch);
    CUDAENV_TRY_ASSIGN(
        auto label,
        resolve_wheel_label(*index, profiles, request.version,
                            WheelRequest{.profile = profile, .components = request.components, .platform = platforms.front()}));
    lock.label = label;
    lock.source = index->url();
    plan_files = plan_wheel_files(*index, profiles);
  } else {
    ReleaseSource source(sources.cache_dir, releases, sources.base_url, sources.fetch);
    CUDAENV_TRY_ASSIGN(auto label, source.resolve(request.version));
    lock.label = label;
    lock.source = sources.base_url;
    plan_files =
        plan_redist_files(releases, profiles, RedistFolder{sources.base_url, sources.skip_manifest_pin, sources.fetch}, progress);
  }
  CUDAENV_TRY(check_release_label(lock.label));
  CUDAENV_TRY(check_profile(profiles, lock.label, profile));
  for (const std::string& platform : platforms) {
    InstallRequest wanted{.label = lock.label, .profile = profile, .components = request.components, .platform = platform};
    CUDAENV_TRY_ASSIGN(auto plan, plan_files(wanted, [] { return false; }));
    lock.manifest_sha256 = plan.pinned_by_sha256;
    if (plan.source == InstallSource::pypi) lock.metapackage = plan.pinned_by_url;
    for (const Archive& archive : plan.files) lock.components.push_back(LockedArchive{.platform = platform, .archive = archive});
    CUDAENV_TRY_ASSIGN(auto libraries, resolve_libraries(request.libraries, lock.label, platform, sources, progress));
    for (const PlannedLibrary& library : libraries) {
      lock.libraries.push_back(LockedArchive{.platform = platform,
                                             .archive = library.archive,
                                             .release = library.release,
                                             .source = library.source,
                                             .source_sha256 = library.source_sha256});
    }
  }
  normalise_lock(lock);
  return lock;
}

std::vector<std::string> installed_differences(const std::filesystem::path& home, const CudaLock& lock,
                                               const std::string& platform) {
  auto installed = installed_files(home);
  if (!installed) return {"it has no readable install receipt"};
  std::vector<LockedArchive> locked = lock.components_for(platform);
  for (const LockedArchive& library : lock.libraries_for(platform)) locked.push_back(library);
  std::vector<std::string> out;
  for (const LockedArchive& entry : locked) {
    const Archive& archive = entry.archive;
    bool found = std::any_of(installed->begin(), installed->end(),
                             [&](const Archive& have) { return have.name == archive.name && have.sha256 == archive.sha256; });
    if (!found) out.push_back(archive.name + " " + archive.version + " is not installed as locked");
  }
  if (installed->size() > locked.size()) out.push_back("it has files the lock does not list");
  return out;
}

}  // namespace cudaenv
