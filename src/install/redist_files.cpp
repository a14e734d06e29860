#include "install/redist_files.h"

#include "install/checked_manifest.h"
#include "install/plan.h"
#include "util/sha256.h"

namespace cudaenv {

PlanFiles plan_redist_files(const ReleaseCatalog& releases, const ProfileCatalog& profiles, RedistFolder folder,
                            ProgressReporter& progress) {
  return [&releases, &profiles, folder, &progress](const InstallRequest& request,
                                                   const std::function<bool()>& should_stop) -> Result<InstallPlan> {
    DownloadOptions options;
    options.should_stop = should_stop;
    CUDAENV_TRY_ASSIGN(
        auto text, fetch_checked_manifest(releases, folder.base_url, request.label, folder.skip_manifest_pin, options, progress));
    std::string url = manifest_url(folder.base_url, request.label);
    CUDAENV_TRY_ASSIGN(auto manifest, parse_redist_manifest(text, url));
    CUDAENV_TRY_ASSIGN(
        auto archives,
        plan_install(manifest, profiles, PlanRequest{request.label, request.profile, request.components, request.platform}));
    InstallPlan plan{request.label, "redist", folder.base_url, url, sha256_hex(text), {}};
    for (const PlannedArchive& archive : archives) {
      plan.files.push_back(PlannedFile{archive.component,
                                       archive.version,
                                       folder.base_url + archive.artifact.relative_path,
                                       archive.artifact.sha256,
                                       archive.artifact.size,
                                       {}});
    }
    return plan;
  };
}

}  // namespace cudaenv
