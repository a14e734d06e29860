#include "mirror/mirror_store.h"

#include <algorithm>
#include <set>

#include "install/downloader.h"
#include "install/plan.h"
#include "install/redist_files.h"
#include "install/redist_manifest.h"
#include "util/file_system.h"
#include "util/sha256.h"

namespace cudaenv {

namespace fs = std::filesystem;

namespace {

// The components of the release DIR already holds for `platform`, so a re-sync covers them.
std::vector<std::string> held_components(const MirrorIndex& held, const std::string& label, const std::string& manifest_sha256,
                                         const std::string& platform) {
  std::vector<std::string> out;
  const MirrorRelease* release = held.find(label);
  if (!release || release->manifest.archive.sha256 != manifest_sha256) return out;
  for (const MirrorFile& file : release->files) {
    if (file.platform == platform) out.push_back(file.archive.name);
  }
  return out;
}

// Releases may share an archive (a component unchanged by an update), but a sync never
// replaces a file that another release holds with other content.
// `archive`'s url is its path below the folder, as the manifest gives it.
Status check_not_foreign(const MirrorIndex& held, const SyncRequest& request, const Archive& archive, const std::string& source) {
  for (const MirrorRelease& other : held.releases) {
    if (other.label == request.label) continue;
    for (const MirrorFile& file : other.files) {
      if (file.archive.url != archive.url || file.archive.sha256 == archive.sha256) continue;
      return make_error(source + " puts an archive at " + archive.url + ", where the mirror holds CUDA " + other.label +
                            "'s file with sha256 " + file.archive.sha256 + "; syncing would replace it",
                        "the manifest is broken or hostile: nothing was changed; do not mirror it into " + request.dir.string());
    }
  }
  return ok_status();
}

Result<std::vector<MirrorFile>> planned_files(const RedistManifest& manifest, const ProfileCatalog& profiles,
                                              const SyncRequest& request, const MirrorIndex& held,
                                              const std::string& manifest_sha256, const std::string& source) {
  std::vector<std::string> platforms = request.platforms;
  const MirrorRelease* release = held.find(request.label);
  if (release && release->manifest.archive.sha256 == manifest_sha256) {
    for (const std::string& platform : release->platforms()) {
      if (std::find(platforms.begin(), platforms.end(), platform) == platforms.end()) platforms.push_back(platform);
    }
  }
  std::vector<MirrorFile> files;
  std::set<std::string> paths;
  for (const std::string& platform : platforms) {
    std::vector<std::string> components = request.components;
    for (std::string& component : held_components(held, request.label, manifest_sha256, platform)) {
      components.push_back(std::move(component));
    }
    CUDAENV_TRY_ASSIGN(
        auto plan,
        plan_install(
            manifest, profiles,
            PlanRequest{.label = request.label, .profile = request.profile, .components = components, .platform = platform}));
    // Each archive's url is still its path below the folder, which the mirror keeps.
    for (const Archive& archive : plan) {
      if (!paths.insert(archive.url).second) continue;
      CUDAENV_TRY(check_not_foreign(held, request, archive, source));
      files.push_back(MirrorFile{.platform = platform, .archive = archive});
    }
  }
  return files;
}

}  // namespace

Result<MirrorIndex> read_mirror_index(const fs::path& dir) {
  fs::path path = dir / kMirrorIndexName;
  std::error_code ec;
  if (!fs::exists(path, ec)) return MirrorIndex{};
  CUDAENV_TRY_ASSIGN(auto text, RealFileSystem().read_file(path, kLargeFileLimit));
  return parse_mirror_index(text, path.string());
}

Result<MirrorRelease> sync_release(const ReleaseCatalog& releases, const ProfileCatalog& profiles, const SyncRequest& request,
                                   const MirrorIndex& held, ProgressReporter& progress) {
  CUDAENV_TRY(check_release_label(request.label));
  CUDAENV_TRY(check_profile(profiles, request.label, request.profile));
  std::string source = manifest_url(request.base_url, request.label);
  DownloadOptions options;
  options.jobs = request.jobs;
  options.fetch = request.fetch;
  CUDAENV_TRY_ASSIGN(
      auto text, fetch_checked_manifest(releases, request.base_url, request.label, request.skip_manifest_pin, options, progress));
  CUDAENV_TRY_ASSIGN(auto manifest, parse_redist_manifest(text, source));
  std::string manifest_sha256 = sha256_hex(text);
  CUDAENV_TRY_ASSIGN(auto files, planned_files(manifest, profiles, request, held, manifest_sha256, source));

  std::vector<DownloadJob> jobs;
  std::vector<std::string> names;
  std::vector<std::uint64_t> sizes;
  for (const MirrorFile& file : files) {
    fs::path destination = request.dir / file.archive.url;
    std::error_code ec;
    fs::create_directories(destination.parent_path(), ec);
    if (ec) return make_error("cannot create " + destination.parent_path().string() + ": " + ec.message());
    jobs.push_back(DownloadJob{.archive = in_folder(request.base_url, file.archive), .destination = destination});
    names.push_back(file.archive.name + " (" + file.platform + ")");
    sizes.push_back(file.archive.size);
  }
  progress.begin(names, sizes, "CUDA " + request.label);
  Status downloaded = download_all(jobs, options, progress);
  progress.end();
  CUDAENV_TRY(downloaded);

  std::string manifest_name = "redistrib_" + request.label + ".json";
  CUDAENV_TRY(write_file_atomically(request.dir / manifest_name, text));
  MirrorFile manifest_file{.archive = {.name = "manifest", .url = manifest_name, .sha256 = manifest_sha256, .size = text.size()}};
  return MirrorRelease{
      .label = request.label, .release_date = manifest.release_date, .manifest = manifest_file, .files = std::move(files)};
}

Status write_mirror_index(const fs::path& dir, const MirrorIndex& index) {
  return write_file_atomically(dir / kMirrorIndexName, render_mirror_index(index));
}

}  // namespace cudaenv
