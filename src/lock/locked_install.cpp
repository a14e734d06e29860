#include "lock/locked_install.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "install/library.h"
#include "install/plan.h"
#include "install/pypi_index.h"
#include "install/redist_files.h"
#include "mirror/redist_source.h"
#include "util/output.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

bool has_kind(const std::vector<ArchivePlace>& places, PlaceKind kind) {
  return std::any_of(places.begin(), places.end(), [&](const ArchivePlace& place) { return place.kind == kind; });
}

// Only what is set replaces: a default (NVIDIA's folder, PyPI) is not a choice the user made.
Result<Replacements> replacements_for(const ReleaseCatalog& releases, const LockUse& use, const LockSources& sources,
                                      const std::vector<ArchivePlace>& places) {
  Replacements out;
  if (use.mirror.kind != OriginKind::fallback) {
    CUDAENV_TRY_ASSIGN(auto base, redist_base_url(use.mirror));
    out.redist = Replacement{base, use.mirror.origin()};
  }
  bool cudnn_set = sources.cudnn_mirror.kind == OriginKind::environment;
  if (has_kind(places, PlaceKind::cudnn_folder) && (out.redist || cudnn_set)) {
    CUDAENV_TRY_ASSIGN(auto base, cudnn_base_url(out.redist ? out.redist->root : releases.default_base, sources.cudnn_mirror));
    out.cudnn = Replacement{base, cudnn_set ? sources.cudnn_mirror.origin() : use.mirror.origin()};
  }
  if (use.index.kind != OriginKind::fallback) {
    CUDAENV_TRY_ASSIGN(auto root, sources.index_url());
    out.index = Replacement{root, use.index.origin()};
  }
  return out;
}

Result<DefaultPlaces> default_places(const DataFiles& data, const ReleaseCatalog& releases,
                                     const std::vector<ArchivePlace>& places) {
  DefaultPlaces defaults{releases.default_base, "", kDefaultPackageIndex, {kDefaultPackageFiles}};
  if (has_kind(places, PlaceKind::cudnn_folder)) {
    CUDAENV_TRY_ASSIGN(auto cudnn, load_cudnn_catalog(data));
    defaults.cudnn_folder = cudnn.default_base;
  }
  return defaults;
}

void add_once(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace

Status check_vouched(const LockFile& file, const std::vector<ArchivePlace>& places, const std::vector<LockedArchive>& archives,
                     const Replacements& replaced, const DefaultPlaces& defaults, bool trusted, const LockUse& use) {
  std::vector<std::string> hosts, named, options, variables;
  for (size_t i = 0; i < places.size(); ++i) {
    const ArchivePlace& place = places[i];
    if (replaced.of(place.kind) || is_default_place(place, archives[i], defaults)) continue;
    // A wheel on PyPI's pages but another host: the host is the wheel's.
    bool stray_wheel = place.kind == PlaceKind::package_index && place.root == defaults.package_index;
    const Archive& archive = archives[i].archive;
    add_once(hosts, url_origin(stray_wheel ? archive.url : place.root));
    add_once(named, stray_wheel ? archive.name + "'s wheel " + archive.url
                                : std::string(place_kind_name(place.kind)) + " " + place.root);
    bool index = place.kind == PlaceKind::package_index;
    add_once(options, index ? "--index-url URL" : "--mirror URL");
    add_once(variables, index ? "PIP_INDEX_URL" : "CUDAENV_MIRROR");
  }
  if (hosts.empty() || trusted) return ok_status();
  return make_error(file.path.string() + " fetches from " + join(hosts, ", ") + " (" + join(named, "; ") +
                        "), which is neither NVIDIA's nor PyPI's nor a place you configured; a lock from a cloned "
                        "repository does not choose the server by itself",
                    "if you trust this repository, run `cudaenv trust` (it trusts its cuda.toml and cuda.lock until "
                    "either changes) and `" +
                        use.command() + "` again; or name the server yourself: `" + use.command() + " " + join(options, " ") +
                        "` (or set " + join(variables, ", ") +
                        "); every archive is still checked against the lock's sha256 and size");
}

namespace {

// Said once per kind, where the replacing place differs from the lock's.
void say_replacements(const std::vector<ArchivePlace>& places, const Replacements& replaced, const fs::path& path) {
  for (PlaceKind kind : {PlaceKind::redist_folder, PlaceKind::cudnn_folder, PlaceKind::package_index}) {
    const std::optional<Replacement>& replacement = replaced.of(kind);
    if (!replacement) continue;
    std::vector<std::string> roots;
    for (const ArchivePlace& place : places) {
      if (place.kind == kind && place.root != replacement->root) add_once(roots, place.root);
    }
    if (roots.empty()) continue;
    print_note(replacement->root + " (" + replacement->origin + ") replaces " + place_kind_name(kind) + " " + join(roots, ", ") +
               " that " + path.string() + " names: " +
               (kind == PlaceKind::package_index ? "each wheel is found there by its file name"
                                                 : "each archive is fetched from there at its path") +
               " and checked against the lock's sha256 and size");
  }
}

std::string relock_hint(const LockUse& use) {
  if (use.flag == "--frozen") {
    return "run `cudaenv lock` where the project is maintained, review the change to cuda.lock and commit it";
  }
  return "run `cudaenv lock` to lock what is offered now (and review the change to cuda.lock)" +
         std::string(use.flag == "--locked" ? ", or install without --locked" : "");
}

}  // namespace

Status check_manifest_pin(const LockFile& file, const ReleaseCatalog& releases, const LockUse& use) {
  const CudaLock& lock = file.lock;
  const Release* release = releases.find(lock.label);
  if (lock.request.source == InstallSource::pypi || use.skip_manifest_pin || !release || !release->sha256 ||
      *release->sha256 == lock.manifest_sha256) {
    return ok_status();
  }
  return make_error(file.path.string() + " was made from a CUDA " + lock.label + " manifest with sha256 " + lock.manifest_sha256 +
                        ", but cudaenv pins " + *release->sha256 + " for NVIDIA's",
                    "a lock made from a private mirror's own manifests needs --skip-manifest-pin (or "
                    "CUDAENV_SKIP_MANIFEST_PIN=1) here too; otherwise the lock was edited or made from an altered "
                    "manifest: " +
                        relock_hint(use));
}

namespace {

// The folder's manifest for the lock's label must give the locked archives, and be the one the
// lock was made from (unless pins are skipped: a private mirror's own manifest).
Status check_locked_manifest(const LockFile& file, const std::string& folder, const std::string& platform,
                             const ProfileCatalog& profiles, const LockUse& use, const FetchSettings& fetch,
                             const std::function<bool()>& should_stop, ProgressReporter& progress) {
  const CudaLock& lock = file.lock;
  std::string url = manifest_url(folder, lock.label);
  progress.note("fetching " + url);
  DownloadOptions options;
  options.should_stop = should_stop;
  options.fetch = fetch;
  CUDAENV_TRY_ASSIGN(auto text, fetch_text(url, options));
  CUDAENV_TRY_ASSIGN(auto manifest, parse_redist_manifest(text, url));
  std::vector<LockedArchive> locked = lock.components_for(platform);
  std::vector<std::string> names;
  for (const LockedArchive& entry : locked) names.push_back(entry.archive.name);
  CUDAENV_TRY_ASSIGN(
      auto offered,
      plan_install(manifest, profiles,
                   PlanRequest{.label = lock.label, .profile = lock.profile, .components = names, .platform = platform}));
  // Compared where the lock has them, so a mirror's copy matches the folder the lock names.
  std::vector<LockedArchive> now;
  for (Archive& archive : offered)
    now.push_back(LockedArchive{.platform = platform, .archive = in_folder(lock.source, std::move(archive))});
  std::vector<std::string> differences = archive_differences(locked, now);
  if (!differences.empty()) {
    return make_error(
        "the manifest " + url + " no longer gives what " + file.path.string() + " locks: " + join(differences, "; "),
        relock_hint(use));
  }
  std::string actual = sha256_hex(text);
  if (actual == lock.manifest_sha256 || use.skip_manifest_pin) return ok_status();
  return make_error("the manifest " + url + " has sha256 " + actual + ", but " + file.path.string() +
                        " was made from one with sha256 " + lock.manifest_sha256,
                    "it gives the same archives, so this folder serves a manifest of its own (a private mirror's?): "
                    "pass --skip-manifest-pin to accept it; every archive is still checked against the lock's sha256 "
                    "and size");
}

// Where a replacing index serves the locked wheel: found by its file name, and refused when the
// index says its bytes differ from the lock's.
Result<std::string> wheel_on_index(PackageIndex& index, const Archive& archive, const std::string& file_name,
                                   const LockUse& use) {
  CUDAENV_TRY_ASSIGN(auto files, index.files(archive.distribution));
  for (const IndexFile& file : files) {
    if (file.filename != file_name) continue;
    bool other_sha = !file.sha256.empty() && file.sha256 != archive.sha256;
    if (other_sha || (file.size != 0 && file.size != archive.size)) {
      return make_error(
          archive.name + ": " + index.url() + " serves " + file_name + " with " +
              (other_sha ? "sha256 " + file.sha256 + ", but cuda.lock locks " + archive.sha256
                         : std::to_string(file.size) + " bytes, but cuda.lock locks " + std::to_string(archive.size)) +
              ": refused, nothing was installed",
          "the index serves other bytes under the locked name: use the index the lock was made from "
          "(--index-url), or " +
              relock_hint(use));
    }
    return file.url;
  }
  return make_error(archive.name + ": " + index.url() + " has no " + file_name + ", the wheel cuda.lock locks",
                    "use an index that serves it (--index-url, PIP_INDEX_URL), or " + relock_hint(use));
}

// A locked file whose URL is only known once the replacing index is read.
struct WheelLookup {
  size_t file;  // in the plan
  Archive archive;
  std::string file_name;
};

}  // namespace

Result<LockedInstall> locked_install(const LockFile& file, const std::string& platform, const ReleaseCatalog& releases,
                                     const ProfileCatalog& profiles, const LockUse& use, const LockSources& sources,
                                     const TrustStore& trust, ProgressReporter& progress) {
  const CudaLock& lock = file.lock;
  if (std::find(lock.platforms.begin(), lock.platforms.end(), platform) == lock.platforms.end()) {
    return make_error(
        file.path.string() + " locks CUDA " + lock.label + " for " + join(lock.platforms, ", ") + ", not for " + platform,
        "run `cudaenv lock --platform " + platform + "` (with the other platforms too) to add it");
  }
  std::vector<LockedArchive> archives = lock.components_for(platform);
  for (const LockedArchive& library : lock.libraries_for(platform)) archives.push_back(library);
  std::vector<ArchivePlace> places;
  for (const LockedArchive& archive : archives) {
    CUDAENV_TRY_ASSIGN(auto place, archive_place(lock, archive, file.path));
    places.push_back(std::move(place));
  }
  CUDAENV_TRY_ASSIGN(auto replaced, replacements_for(releases, use, sources, places));
  CUDAENV_TRY_ASSIGN(auto defaults, default_places(sources.data, releases, places));
  CUDAENV_TRY(check_vouched(file, places, archives, replaced, defaults, trust.is_trusted(file.path, file.text), use));
  CUDAENV_TRY(check_manifest_pin(file, releases, use));
  say_replacements(places, replaced, file.path);

  bool pypi = lock.request.source == InstallSource::pypi;
  std::string folder = replaced.redist ? replaced.redist->root : lock.source;
  std::string origin = pypi && replaced.index ? replaced.index->root : pypi ? lock.source : folder;
  InstallPlan exact{.label = lock.label,
                    .source = lock.request.source,
                    .origin = origin,
                    .pinned_by_url = pypi ? lock.metapackage : manifest_url(folder, lock.label),
                    .pinned_by_sha256 = lock.manifest_sha256};
  InstallRequest request{.label = lock.label, .profile = lock.profile, .platform = platform};
  std::vector<WheelLookup> lookups;
  for (size_t i = 0; i < archives.size(); ++i) {
    const Archive& archive = archives[i].archive;
    const ArchivePlace& place = places[i];
    (archives[i].source.empty() ? request.components : request.libraries).push_back(archive.name);
    Archive planned = archive;
    const std::optional<Replacement>& replacement = replaced.of(place.kind);
    if (replacement && place.kind != PlaceKind::package_index) planned.url = replacement->root + place.relative;
    // A wheel on the replacing index's own host is fetched as locked; elsewhere the index says where.
    if (replacement && place.kind == PlaceKind::package_index && url_origin(archive.url) != url_origin(replacement->root)) {
      lookups.push_back(WheelLookup{.file = exact.files.size(), .archive = archive, .file_name = place.relative});
    }
    exact.files.push_back(std::move(planned));
  }
  auto index = replaced.index ? std::make_shared<PackageIndex>(replaced.index->root, sources.fetch) : nullptr;
  FetchSettings fetch = sources.fetch;
  PlanFiles plan_files = [file, folder, platform, use, fetch, exact, lookups, index, pypi, &profiles, &progress](
                             const InstallRequest&, const std::function<bool()>& should_stop) -> Result<InstallPlan> {
    if (!pypi) CUDAENV_TRY(check_locked_manifest(file, folder, platform, profiles, use, fetch, should_stop, progress));
    InstallPlan plan = exact;
    if (index) index->set_should_stop(should_stop);
    for (const WheelLookup& lookup : lookups) {
      CUDAENV_TRY_ASSIGN(auto url, wheel_on_index(*index, lookup.archive, lookup.file_name, use));
      plan.files[lookup.file].url = url;
    }
    return plan;
  };
  return LockedInstall{std::move(request), std::move(plan_files)};
}

}  // namespace cudaenv
