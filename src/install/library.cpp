#include "install/library.h"

#include <algorithm>

#include "core/version.h"
#include "install/pypi_index.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

const char* display_name(const std::string& name) { return name == "cudnn" ? "cuDNN" : name == "nccl" ? "NCCL" : name.c_str(); }

// "cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz" -> 12: single-variant manifests still say
// which major their archive is for in its name.
std::optional<int> major_in_file_name(const std::string& relative_path) {
  size_t at = relative_path.rfind("_cuda");
  if (at == std::string::npos) return std::nullopt;
  size_t end = at + 5;
  while (end < relative_path.size() && relative_path[end] >= '0' && relative_path[end] <= '9') ++end;
  if (end == at + 5) return std::nullopt;
  return static_cast<int>(parse_decimal(relative_path.substr(at + 5, end - at - 5), 1000).value_or(0));
}

std::vector<std::string> majors_offered(const RedistComponent& component, const std::string& platform) {
  std::vector<std::string> out;
  if (auto variants = component.variants.find(platform); variants != component.variants.end()) {
    for (const auto& entry : variants->second) {
      if (starts_with(entry.first, "cuda")) out.push_back("CUDA " + entry.first.substr(4));
    }
  } else if (auto plain = component.platforms.find(platform); plain != component.platforms.end()) {
    if (auto major = major_in_file_name(plain->second.url)) out.push_back("CUDA " + std::to_string(*major));
  }
  return out;
}

}  // namespace

std::optional<LibraryFiles> library_files(const std::string& component) {
  if (component == "cudnn")
    return LibraryFiles{"nvidia/cudnn", {{"include", "cudnn"}, {"lib", "libcudnn"}}, "include/cudnn*, lib/libcudnn*"};
  if (component == "nccl")
    return LibraryFiles{"nvidia/nccl", {{"include", "nccl"}, {"lib", "libnccl"}}, "include/nccl*, lib/libnccl*"};
  return std::nullopt;
}

bool library_owns(const LibraryFiles& files, std::string_view path) {
  std::vector<std::string> parts = split(path, '/');
  if (parts.size() < 2) return false;
  return std::any_of(files.owns.begin(), files.owns.end(),
                     [&](const auto& owned) { return parts[0] == owned.first && starts_with(parts[1], owned.second); });
}

Result<std::string> cudnn_base_url(const std::string& cuda_base, const Setting& cudnn_mirror) {
  if (const std::string& mirror = cudnn_mirror.value; !mirror.empty()) return mirror.back() == '/' ? mirror : mirror + "/";
  const std::string tail = "/cuda/redist/";
  if (cuda_base.size() > tail.size() && cuda_base.compare(cuda_base.size() - tail.size(), tail.size(), tail) == 0) {
    return cuda_base.substr(0, cuda_base.size() - tail.size()) + "/cudnn/redist/";
  }
  return make_error("cannot tell where cuDNN's redist folder is for the mirror " + cuda_base,
                    "a mirror in NVIDIA's layout keeps .../cuda/redist/ and .../cudnn/redist/ side by side; otherwise "
                    "set CUDAENV_CUDNN_MIRROR to cuDNN's folder");
}

Result<std::string> choose_library_release(const LibrarySpec& spec, const std::vector<std::string>& labels_newest_first) {
  std::optional<Version> wanted = spec.version.empty() ? std::nullopt : parse_version(spec.version);
  std::vector<std::string> known;
  for (const std::string& label : labels_newest_first) {
    auto version = parse_version(label);
    if (!version) continue;
    if (!wanted || version_matches(*wanted, *version)) return label;
    if (known.size() < 12) known.push_back(label);
  }
  if (labels_newest_first.empty()) {
    return make_error(std::string("no ") + display_name(spec.name) + " release is known", "check the mirror and the network");
  }
  return make_error(std::string("no ") + display_name(spec.name) + " release matches " + spec.version,
                    "releases offered (newest first): " + join(known, ", "), ErrorKind::usage);
}

Result<Archive> choose_library_archive(const RedistManifest& manifest, const std::string& name, const std::string& release,
                                       const std::string& platform, int cuda_major) {
  std::string what = std::string(display_name(name)) + " " + release;
  const RedistComponent* component = manifest.find(name);
  if (!component) return make_error("the " + what + " manifest has no " + name + " entry", "check the mirror");
  std::vector<std::string> majors = majors_offered(*component, platform);
  if (majors.empty() && !component->platforms.count(platform)) {
    std::vector<std::string> platforms;
    for (const auto& entry : component->platforms) platforms.push_back(entry.first);
    for (const auto& entry : component->variants) platforms.push_back(entry.first);
    return make_error(what + " has no archive for " + platform, "it has archives for: " + join(platforms, ", "));
  }
  auto archive = archive_for(*component, platform, cuda_major);
  auto in_name = archive ? major_in_file_name(archive->url) : std::nullopt;
  if (!archive || (in_name && *in_name != cuda_major)) {
    return make_error(what + " has no build for CUDA " + std::to_string(cuda_major) + " on " + platform,
                      "it has builds for " + (majors.empty() ? std::string("no CUDA major it names") : join(majors, ", ")) +
                          ": pin a release that has one (e.g. libraries = [\"" + name +
                          "@<version>\"]), or use a toolkit of one of those majors");
  }
  return *archive;
}

std::string nccl_distribution(int cuda_major) { return "nvidia-nccl-cu" + std::to_string(cuda_major); }

Result<IndexFile> choose_nccl_wheel(const std::vector<IndexFile>& files, const LibrarySpec& spec, int cuda_major,
                                    const std::string& platform, const std::string& page_url) {
  std::string distribution = nccl_distribution(cuda_major);
  if (!spec.version.empty() && !release_numbers(spec.version)) {
    return make_error("'" + spec.version + "' is not an NCCL version", "e.g. nccl@2.28", ErrorKind::usage);
  }
  auto wheel = choose_wheel(files, distribution, spec.version.empty() ? "" : "==" + spec.version + ".*", platform);
  if (wheel) return *wheel;
  std::vector<std::string> versions = wheel_versions(files, distribution, platform);
  std::reverse(versions.begin(), versions.end());
  if (versions.size() > 12) versions.resize(12);
  if (versions.empty()) {
    return make_error(page_url + " has no " + platform + " wheel of " + distribution,
                      "NCCL publishes wheels for linux-x86_64 and linux-sbsa; check --index-url");
  }
  return make_error("no NCCL release matches " + spec.version + " on " + page_url,
                    "releases offered for CUDA " + std::to_string(cuda_major) + " (newest first): " + join(versions, ", "),
                    ErrorKind::usage);
}

}  // namespace cudaenv
