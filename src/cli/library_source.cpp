#include "cli/library_source.h"

#include "install/checked_manifest.h"
#include "mirror/release_discovery.h"
#include "util/sha256.h"

namespace cudaenv {

namespace {

Result<PlannedLibrary> resolve_cudnn(const LibrarySpec& spec, const LibraryContext& context, ProgressReporter& progress) {
  CUDAENV_TRY_ASSIGN(auto shipped, load_cudnn_catalog(context.data));
  CUDAENV_TRY_ASSIGN(auto base, cudnn_base_url(context.cuda_base, context.env));
  DiscoveredReleases discovered = discover_releases(shipped, base, context.layout.cache_dir(), ListFreshness::cache_ok);
  if (discovered.unreadable) {
    progress.note("cannot read the list of cuDNN releases at " + base + " (" + discovered.unreadable->message + "); using the " +
                  discovered.origin);
  }
  std::vector<std::string> labels;
  for (const Release& release : discovered.catalog.releases) labels.push_back(release.label);
  CUDAENV_TRY_ASSIGN(auto release, choose_library_release(spec, labels));
  DownloadOptions options;
  CUDAENV_TRY_ASSIGN(auto text,
                     fetch_checked_manifest(discovered.catalog, base, release, context.skip_manifest_pin, options, progress));
  std::string url = manifest_url(base, release);
  CUDAENV_TRY_ASSIGN(auto manifest, parse_redist_manifest(text, url));
  CUDAENV_TRY_ASSIGN(auto archive, choose_library_archive(manifest, spec.name, release, context.platform, context.cuda_major));
  std::string archive_url = base + archive.artifact.relative_path;
  return PlannedLibrary{spec.name, release, std::move(archive), archive_url, url, sha256_hex(text)};
}

}  // namespace

Result<PlannedLibrary> resolve_library(const LibrarySpec& spec, const LibraryContext& context, ProgressReporter& progress) {
  if (spec.name == "cudnn") return resolve_cudnn(spec, context, progress);
  return make_error(
      "NCCL comes from NVIDIA's PyPI wheels (nvidia-nccl-cu12, nvidia-nccl-cu13), which this cudaenv "
      "does not install as a library yet",
      "install NCCL with pip (pip install nvidia-nccl-cu" + std::to_string(context.cuda_major) +
          "), or leave it out of libraries");
}

}  // namespace cudaenv
