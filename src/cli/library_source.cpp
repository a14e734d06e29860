#include "cli/library_source.h"

#include "install/package_index.h"
#include "install/redist_files.h"
#include "mirror/release_discovery.h"
#include "util/sha256.h"
#include "util/strings.h"

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
  return PlannedLibrary{spec.name, release, std::move(archive), archive_url, url, sha256_hex(text), ""};
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
  PackageIndex index(context.index_url);
  std::string distribution = nccl_distribution(context.cuda_major);
  std::string page = index.url() + "/" + distribution + "/";
  auto files = index.files(distribution);
  if (!files) {
    // Only a missing page means no wheel for this major; an index that cannot be reached is said
    // as it is, without asking it for the other majors' pages.
    if (files.error().message.find("HTTP 404") == std::string::npos) return files.take_error();
    std::vector<std::string> majors = nccl_majors_offered(index, context.platform);
    if (majors.empty()) return files.take_error();
    return make_error("NCCL has no wheel for CUDA " + std::to_string(context.cuda_major) + " on " + index.url() + " (" +
                          distribution + ": " + files.error().message + ")",
                      "it has wheels for " + join(majors, ", ") +
                          ": use a toolkit of one of those majors, or leave nccl out "
                          "of libraries");
  }
  CUDAENV_TRY_ASSIGN(auto wheel, choose_nccl_wheel(*files, spec, context.cuda_major, context.platform, page));
  CUDAENV_TRY_ASSIGN(auto file, planned_wheel(index, wheel, spec.name, distribution));
  PlannedArchive archive{spec.name, file.version, RedistArtifact{file.url, file.sha256, file.size}};
  return PlannedLibrary{spec.name, file.version, std::move(archive), file.url, page, "", distribution};
}

}  // namespace

Result<PlannedLibrary> resolve_library(const LibrarySpec& spec, const LibraryContext& context, ProgressReporter& progress) {
  if (spec.name == "nccl") return resolve_nccl(spec, context);
  return resolve_cudnn(spec, context, progress);
}

}  // namespace cudaenv
