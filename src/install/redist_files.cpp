#include "install/redist_files.h"

#include "install/plan.h"
#include "util/sha256.h"

namespace cudaenv {

std::string manifest_url(const std::string& base_url, const std::string& label) {
  return base_url + "redistrib_" + label + ".json";
}

Result<std::string> fetch_checked_manifest(const ReleaseCatalog& releases, const std::string& base_url, const std::string& label,
                                           bool skip_pin, const DownloadOptions& options, ProgressReporter& progress) {
  std::string url = manifest_url(base_url, label);
  progress.note("fetching " + url);
  auto text = fetch_text(url, options);
  if (!text) return text.take_error();
  std::string actual = sha256_hex(*text);
  const Release* release = releases.find(label);
  if (skip_pin) return text;
  if (!release || !release->sha256) {
    progress.note("note: cudaenv has no pinned sha256 for the CUDA " + label +
                  " manifest; the archives are still checked against it");
    return text;
  }
  if (*release->sha256 != actual) {
    return make_error(
        "the manifest " + url + " has sha256 " + actual + ", but cudaenv pins " + *release->sha256 + " for CUDA " + label,
        "NVIDIA has regenerated a manifest after release before (12.2.0, whose hashes were wrong: "
        "NVIDIA/build-system-archive-import-examples#8), so from NVIDIA's own folder this may be a "
        "corrected manifest: compare it with another copy, then pass --skip-manifest-pin (or set "
        "CUDAENV_SKIP_MANIFEST_PIN=1); the archives are still checked against it, and the receipt "
        "records its sha256.\nA private mirror with its own manifests needs the same flag. Otherwise the "
        "mirror serves an altered manifest: do not install from it");
  }
  return text;
}

PlanFiles plan_redist_files(const ReleaseCatalog& releases, const ProfileCatalog& profiles, RedistFolder folder,
                            ProgressReporter& progress) {
  return [&releases, &profiles, folder, &progress](const InstallRequest& request,
                                                   const std::function<bool()>& should_stop) -> Result<InstallPlan> {
    DownloadOptions options;
    options.should_stop = should_stop;
    options.fetch = folder.fetch;
    CUDAENV_TRY_ASSIGN(
        auto text, fetch_checked_manifest(releases, folder.base_url, request.label, folder.skip_manifest_pin, options, progress));
    std::string url = manifest_url(folder.base_url, request.label);
    CUDAENV_TRY_ASSIGN(auto manifest, parse_redist_manifest(text, url));
    CUDAENV_TRY_ASSIGN(auto archives, plan_install(manifest, profiles,
                                                   PlanRequest{.label = request.label,
                                                               .profile = request.profile,
                                                               .components = request.components,
                                                               .platform = request.platform}));
    InstallPlan plan{.label = request.label,
                     .source = InstallSource::redist,
                     .origin = folder.base_url,
                     .pinned_by_url = url,
                     .pinned_by_sha256 = sha256_hex(text)};
    for (Archive& archive : archives) plan.files.push_back(in_folder(folder.base_url, std::move(archive)));
    return plan;
  };
}

}  // namespace cudaenv
