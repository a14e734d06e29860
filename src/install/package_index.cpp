#include "install/package_index.h"

#include "install/extractor.h"
#include "install/redist_manifest.h"
#include "util/sha256.h"

namespace cudaenv {

namespace {

// A metapackage wheel is a few kB; its METADATA lists the component pins.
constexpr std::uint64_t kMaxMetapackageBytes = 1 << 20;

}  // namespace

PackageIndex::PackageIndex(std::string url) : url_(std::move(url)) {
  while (!url_.empty() && url_.back() == '/') url_.pop_back();
  options_.tries = 3;
  options_.low_speed_seconds = 20;
}

Result<std::vector<IndexFile>> PackageIndex::files(const std::string& project) {
  std::string name = normalize_project_name(project);
  if (auto cached = pages_.find(name); cached != pages_.end()) return cached->second;
  std::string page_url = url_ + "/" + name + "/";
  auto page = fetch_text(page_url, options_, kSimpleIndexAccept);
  if (!page) {
    Error error = page.take_error();
    error.hint = "check --index-url, PIP_INDEX_URL or pip's index-url (`pip config list`); the index must serve " + name +
                 " (PEP 503 or PEP 691)";
    return error;
  }
  std::vector<IndexFile> files = parse_project_page(*page);
  for (IndexFile& file : files) file.url = resolve_url(page_url, file.url);
  return pages_[name] = std::move(files);
}

Result<std::string> PackageIndex::wheel_metadata(const IndexFile& wheel) {
  if (wheel.sha256.empty()) {
    return make_error(url_ + " lists " + wheel.filename + " without a sha256",
                      "cudaenv reads only wheels it can check: use an index that publishes hashes");
  }
  if (auto cached = metadata_.find(wheel.url); cached != metadata_.end()) return cached->second;
  CUDAENV_TRY_ASSIGN(auto bytes, fetch_text(wheel.url, options_));
  if (bytes.size() > kMaxMetapackageBytes) {
    return make_error(wheel.url + " is larger than a metapackage: refused",
                      "check --index-url: the index serves something else than NVIDIA's cuda-toolkit");
  }
  std::string actual = sha256_hex(bytes);
  if (actual != wheel.sha256) {
    return make_error(wheel.url + " has sha256 " + actual + " but " + url_ + " says " + wheel.sha256,
                      "the index or a proxy serves an altered file: nothing was installed; run the command again or "
                      "use another --index-url");
  }
  CUDAENV_TRY_ASSIGN(auto metadata, read_wheel_metadata(bytes, wheel.url));
  return metadata_[wheel.url] = std::move(metadata);
}

Result<std::uint64_t> PackageIndex::size_of(const IndexFile& wheel) {
  if (auto cached = sizes_.find(wheel.url); cached != sizes_.end()) return cached->second;
  CUDAENV_TRY_ASSIGN(auto size, fetch_size(wheel.url, options_));
  if (size > kMaxArchiveBytes) {
    return make_error(wheel.url + " is " + std::to_string(size) + " bytes, more than any CUDA wheel: refused",
                      "check --index-url: the index serves something else than NVIDIA's wheels");
  }
  return sizes_[wheel.url] = size;
}

PlanFiles plan_wheel_files(PackageIndex& index, const ProfileCatalog& profiles) {
  return [&index, &profiles](const InstallRequest& request, const std::function<bool()>& should_stop) {
    index.set_should_stop(should_stop);
    return plan_wheels(index, profiles, WheelRequest{request.label, request.profile, request.components, request.platform});
  };
}

}  // namespace cudaenv
