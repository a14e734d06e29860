#include <catch2/catch.hpp>

#include "install/pypi_index.h"
#include "lock/locked_install.h"

using namespace cudaenv;

namespace {

const std::string kSha(64, 'a');
const std::string kNvidia = "https://developer.download.nvidia.com/compute/cuda/redist/";
const std::string kPrivate = "https://cuda.corp.example/redist/";
const std::string kNvcc = "cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.4.131-archive.tar.xz";
const DefaultPlaces kDefaults{kNvidia, "", kDefaultPackageIndex, {kDefaultPackageFiles}};

LockFile lock_file(const std::string& folder) {
  LockFile file;
  file.path = "/clone/cuda.lock";
  file.lock.label = "12.4.1";
  file.lock.source = folder;
  file.lock.manifest_sha256 = kSha;
  return file;
}

LockedArchive nvcc_from(const std::string& folder) {
  return LockedArchive{.platform = "linux-x86_64",
                       .archive = {.name = "cuda_nvcc", .version = "12.4.131", .url = folder + kNvcc, .sha256 = kSha, .size = 1}};
}

LockUse use(const std::string& flag = "--locked") {
  return LockUse{.mirror = mirror_setting("", {}, kNvidia),
                 .index = Setting{kDefaultPackageIndex, OriginKind::fallback, {}},
                 .skip_manifest_pin = false,
                 .flag = flag};
}

}  // namespace

TEST_CASE("lock trust: NVIDIA's and PyPI's places need no trust", "[locked_install]") {
  std::vector<ArchivePlace> places{{PlaceKind::redist_folder, kNvidia, kNvcc}};
  CHECK(check_vouched(lock_file(kNvidia), places, {nvcc_from(kNvidia)}, {}, kDefaults, false, use()).ok());
}

TEST_CASE("lock trust: a place the lock names by itself needs `cudaenv trust` or a place of the user's", "[locked_install]") {
  std::vector<ArchivePlace> places{{PlaceKind::redist_folder, kPrivate, kNvcc}};
  std::vector<LockedArchive> archives{nvcc_from(kPrivate)};
  Status refused = check_vouched(lock_file(kPrivate), places, archives, {}, kDefaults, false, use());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("/clone/cuda.lock fetches from https://cuda.corp.example (the CUDA folder " + kPrivate +
                                     ")") == 0);
  CHECK(refused.error().hint.find("run `cudaenv trust`") != std::string::npos);
  CHECK(refused.error().hint.find("`cudaenv install --locked --mirror URL` (or set CUDAENV_MIRROR)") != std::string::npos);

  CHECK(check_vouched(lock_file(kPrivate), places, archives, {}, kDefaults, true, use()).ok());
  Replacements mirror;
  mirror.redist = Replacement{"file:///srv/redist/", "--mirror"};
  CHECK(check_vouched(lock_file(kPrivate), places, archives, mirror, kDefaults, false, use()).ok());
}

TEST_CASE("lock trust: a lock from [cuda] lock = true says so in its hints", "[locked_install]") {
  std::vector<ArchivePlace> places{{PlaceKind::package_index, "https://pypi.corp.example/simple", "w.whl"}};
  LockedArchive wheel{"nccl",   "linux-x86_64",
                      "2.28.9", "https://pypi.corp.example/files/w.whl",
                      kSha,     1,
                      "2.28.9", "https://pypi.corp.example/simple/nvidia-nccl-cu12/",
                      "",       "nvidia-nccl-cu12"};
  Status refused = check_vouched(lock_file(kNvidia), places, {wheel}, {}, kDefaults, false, use(""));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().hint.find("`cudaenv install --index-url URL` (or set PIP_INDEX_URL)") != std::string::npos);
}

TEST_CASE("lock trust: a lock made from another manifest than NVIDIA's pinned one needs --skip-manifest-pin",
          "[locked_install]") {
  ReleaseCatalog releases;
  releases.default_base = kNvidia;
  releases.releases.push_back(Release{"12.4.1", *parse_version("12.4.1"), std::nullopt, std::string(64, 'b')});
  LockFile file = lock_file(kNvidia);
  Status refused = check_manifest_pin(file, releases, use("--frozen"));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("/clone/cuda.lock was made from a CUDA 12.4.1 manifest with sha256 " + kSha) == 0);
  CHECK(refused.error().hint.find("run `cudaenv lock` where the project is maintained") != std::string::npos);
  LockUse skipping = use();
  skipping.skip_manifest_pin = true;
  CHECK(check_manifest_pin(file, releases, skipping).ok());
  file.lock.manifest_sha256 = std::string(64, 'b');
  CHECK(check_manifest_pin(file, releases, use()).ok());
  file.lock.manifest_sha256 = kSha;
  file.lock.request.source = InstallSource::pypi;
  CHECK(check_manifest_pin(file, releases, use()).ok());
}
