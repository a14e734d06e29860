#include <catch2/catch.hpp>

#include "lock/lock_file.h"

using namespace cudaenv;

namespace {

const std::filesystem::path kLock = "/p/cuda.lock";
const std::string kSha(64, 'a');
const std::string kOtherSha(64, 'b');

LockedArchive component(const std::string& name, const std::string& platform, const std::string& version) {
  return LockedArchive{.platform = platform,
                       .archive = {.name = name,
                                   .version = version,
                                   .url = "https://m.example/cuda/redist/" + name + "/" + platform + "/" + name + "-" + version +
                                          "-archive.tar.xz",
                                   .sha256 = kSha,
                                   .size = 1234}};
}

CudaLock sample_lock() {
  CudaLock lock;
  lock.request = LockRequest{"12.4", "torch", {"libcurand"}, {"cudnn@9.10"}, InstallSource::redist};
  lock.label = "12.4.1";
  lock.profile = "torch";
  lock.platforms = {"linux-x86_64", "linux-sbsa"};
  lock.source = "https://m.example/cuda/redist/";
  lock.manifest_sha256 = kOtherSha;
  lock.components = {component("cuda_nvcc", "linux-x86_64", "12.4.131"), component("cuda_cccl", "linux-x86_64", "12.4.127"),
                     component("cuda_nvcc", "linux-sbsa", "12.4.131")};
  LockedArchive cudnn{
      .platform = "linux-x86_64",
      .archive = {.name = "cudnn",
                  .version = "9.10.0.56",
                  .url = "https://m.example/cudnn/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-9.10.0.56_cuda12-archive.tar.xz",
                  .sha256 = kSha,
                  .size = 1003184568},
      .release = "9.10.0",
      .source = "https://m.example/cudnn/redist/redistrib_9.10.0.json",
      .source_sha256 = kOtherSha};
  LockedArchive nccl{.platform = "linux-x86_64",
                     .archive = {.name = "nccl",
                                 .version = "2.28.9",
                                 .url = "https://pypi.example/files/nvidia_nccl_cu12-2.28.9-py3-none-manylinux_2_18_x86_64.whl",
                                 .sha256 = kSha,
                                 .size = 200000000,
                                 .distribution = "nvidia-nccl-cu12"},
                     .release = "2.28.9",
                     .source = "https://pypi.example/simple/nvidia-nccl-cu12/"};
  lock.libraries = {cudnn, nccl};
  return lock;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("cuda.lock: what is written is read back the same") {
  CudaLock lock = sample_lock();
  auto parsed = parse_lock(kLock, render_lock(lock));
  REQUIRE(parsed.ok());
  normalise_lock(lock);
  CHECK(*parsed == lock);
  CHECK(parsed->libraries.front().release == "9.10.0");
  CHECK(parsed->libraries.back().archive.distribution == "nvidia-nccl-cu12");
  CHECK(parsed->libraries.front().archive.distribution.empty());
  CHECK(parsed->components_for("linux-sbsa").size() == 1);
}

TEST_CASE("cuda.lock: the text does not depend on the order things were found in") {
  CudaLock forward = sample_lock();
  CudaLock backward = sample_lock();
  std::reverse(backward.components.begin(), backward.components.end());
  std::reverse(backward.platforms.begin(), backward.platforms.end());
  std::string text = render_lock(forward);
  CHECK(text == render_lock(backward));
  // Components sort by platform, then name; one field per line keeps a version bump a one-line diff.
  CHECK(text.find("name = \"cuda_nvcc\"\nplatform = \"linux-sbsa\"") < text.find("name = \"cuda_cccl\""));
  CHECK(text.find("name = \"cuda_cccl\"") < text.find("name = \"cuda_nvcc\"\nplatform = \"linux-x86_64\""));
  CHECK(text.find("platforms = [\"linux-sbsa\", \"linux-x86_64\"]") != std::string::npos);
  CudaLock bumped = sample_lock();
  bumped.components[0].archive.version = "12.4.132";
  std::string other = render_lock(bumped);
  size_t differing_lines = 0;
  std::istringstream a(text), b(other);
  for (std::string x, y; std::getline(a, x) && std::getline(b, y);) differing_lines += x != y;
  CHECK(differing_lines == 1);
}

TEST_CASE("cuda.lock: a damaged value is named by position and key") {
  std::string text = render_lock(sample_lock());
  auto bad_sha = parse_lock(kLock, replaced(text, "sha256 = \"" + kSha, "sha256 = \"xyz"));
  REQUIRE_FALSE(bad_sha.ok());
  CHECK(bad_sha.error().message.find("/p/cuda.lock:") == 0);
  CHECK(bad_sha.error().message.find("component[0].sha256 must be 64 lowercase hex digits") != std::string::npos);
  CHECK(bad_sha.error().hint.find("cudaenv lock") != std::string::npos);

  auto traversal = parse_lock(kLock, replaced(text, "12.4.127-archive.tar.xz", "../../etc/passwd/.."));
  REQUIRE_FALSE(traversal.ok());
  CHECK(traversal.error().message.find(".url must be") != std::string::npos);

  auto dot_name = parse_lock(kLock, replaced(text, "name = \"cuda_cccl\"", "name = \"..\""));
  REQUIRE_FALSE(dot_name.ok());
  CHECK(dot_name.error().message.find(".name must be a component or library name") != std::string::npos);

  auto bad_label = parse_lock(kLock, replaced(text, "label = \"12.4.1\"", "label = \"../12\""));
  REQUIRE_FALSE(bad_label.ok());
  CHECK(bad_label.error().message.find("toolkit.label") != std::string::npos);

  auto stray_platform = parse_lock(kLock, replaced(text, "platform = \"linux-sbsa\"", "platform = \"linux-ppc64le\""));
  REQUIRE_FALSE(stray_platform.ok());
  CHECK(stray_platform.error().message.find("which toolkit.platforms does not list") != std::string::npos);

  auto future = parse_lock(kLock, replaced(text, "format = 1", "format = 2"));
  REQUIRE_FALSE(future.ok());
  CHECK(future.error().message.find("is not a cuda.lock this cudaenv reads") != std::string::npos);

  auto not_toml = parse_lock(kLock, "format = 1\n[request\n");
  REQUIRE_FALSE(not_toml.ok());
  CHECK(not_toml.error().message.find("/p/cuda.lock:2") == 0);
}

TEST_CASE("cuda.lock: --check names each setting cuda.toml changed") {
  LockRequest locked{"12.4", "", {"libcurand", "libcufft"}, {"cudnn"}, InstallSource::redist};
  CHECK(
      request_differences(locked, LockRequest{"12.4", "", {"libcufft", "libcurand"}, {"cudnn"}, InstallSource::redist}).empty());
  auto differences = request_differences(locked, LockRequest{"12.6", "torch", {"libcurand"}, {}, InstallSource::pypi});
  REQUIRE(differences.size() == 5);
  CHECK(differences[0] == "version: cuda.lock has \"12.4\", cuda.toml has \"12.6\"");
  CHECK(differences[1] == "profile: cuda.lock has none, cuda.toml has \"torch\"");
  CHECK(differences[3] == "libraries: cuda.lock has [\"cudnn\"], cuda.toml has []");
  CHECK(differences[4] == "source: cuda.lock has redist, cuda.toml has pypi");
}

TEST_CASE("cuda.lock: a toolkit from a package index keeps its index, metapackage and wheels") {
  CudaLock lock = sample_lock();
  lock.request.source = InstallSource::pypi;
  lock.source = "https://pypi.example/simple";
  lock.metapackage = "https://pypi.example/files/cuda_toolkit-13.2.1-py2.py3-none-any.whl";
  lock.components = {component("cuda_nvcc", "linux-x86_64", "13.2.75")};
  lock.components[0].archive.url = "https://pypi.example/files/nvidia_cuda_nvcc-13.2.75-py3-none-manylinux_2_17_x86_64.whl";
  lock.components[0].archive.distribution = "nvidia-cuda-nvcc";
  lock.platforms = {"linux-x86_64"};
  lock.libraries.clear();
  std::string text = render_lock(lock);
  CHECK(text.find("source = \"pypi\"\n\n[toolkit]") != std::string::npos);
  auto parsed = parse_lock(kLock, text);
  REQUIRE(parsed.ok());
  CHECK(*parsed == lock);
  // A redist lock writes neither line: locks written before stay byte for byte the same.
  CHECK(render_lock(sample_lock()).find("metapackage") == std::string::npos);
  auto no_metapackage = parse_lock(kLock, replaced(text, "metapackage = ", "other = "));
  REQUIRE_FALSE(no_metapackage.ok());
  CHECK(no_metapackage.error().message.find("has no metapackage") != std::string::npos);
  auto other_source = parse_lock(kLock, replaced(text, "source = \"pypi\"", "source = \"conda\""));
  REQUIRE_FALSE(other_source.ok());
  CHECK(other_source.error().message.find("request.source must be \"pypi\"") != std::string::npos);
}

TEST_CASE("cuda.lock: --locked names the archives that changed upstream") {
  std::vector<LockedArchive> locked = {component("cuda_nvcc", "linux-x86_64", "12.4.131"),
                                       component("cuda_cccl", "linux-x86_64", "12.4.127")};
  std::vector<LockedArchive> now = locked;
  CHECK(archive_differences(locked, now).empty());
  now[0].archive.sha256 = kOtherSha;
  now.pop_back();
  now.push_back(component("libnvvm", "linux-x86_64", "12.4.1"));
  auto differences = archive_differences(locked, now);
  REQUIRE(differences.size() == 3);
  CHECK(differences[0] == "cuda_cccl (linux-x86_64): in cuda.lock, but no longer offered");
  CHECK(differences[1] == "cuda_nvcc (linux-x86_64): sha256 " + kSha + " in cuda.lock, " + kOtherSha + " now");
  CHECK(differences[2] == "libnvvm (linux-x86_64): 12.4.1 now, not in cuda.lock");
}

TEST_CASE("cuda.lock: the cache key covers label, platform, components and libraries") {
  CudaLock lock = sample_lock();
  auto key = lock_cache_key(lock, "linux-x86_64");
  REQUIRE(key.ok());
  CHECK(key->rfind("cuda-12.4.1-linux-x86_64-", 0) == 0);
  CHECK(key->size() == std::string("cuda-12.4.1-linux-x86_64-").size() + 16);
  CHECK(*lock_cache_key(lock, "linux-sbsa") != *key);
  CudaLock reordered = sample_lock();
  std::reverse(reordered.components.begin(), reordered.components.end());
  normalise_lock(reordered);
  normalise_lock(lock);
  CHECK(*lock_cache_key(reordered, "linux-x86_64") == *key);
  CudaLock new_cudnn = lock;
  new_cudnn.libraries[0].archive.sha256 = kOtherSha;
  CHECK(*lock_cache_key(new_cudnn, "linux-x86_64") != *key);
  CudaLock new_source = lock;
  new_source.source = "https://other.example/cuda/redist/";  // the same bytes from elsewhere: the same cache
  CHECK(*lock_cache_key(new_source, "linux-x86_64") == *key);
  auto missing = lock_cache_key(lock, "windows-x86_64");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().hint == "run `cudaenv lock --platform windows-x86_64` to add it");
}

TEST_CASE("cuda.lock: a lock an earlier cudaenv wrote reads, and is written again byte for byte") {
  const std::string nvidia = "https://developer.download.nvidia.com/compute/";
  const std::string text =
      "# cuda.lock: what cuda.toml resolved to, written by `cudaenv lock`. Commit it beside cuda.toml:\n"
      "# `cudaenv install --locked` installs exactly these archives, or fails naming what differs.\n"
      "format = 1\n\n[request]\nversion = \"12.4\"\nprofile = \"torch\"\ncomponents = [\"libcurand\"]\n"
      "libraries = [\"cudnn@9.10\", \"nccl\"]\n\n[toolkit]\nlabel = \"12.4.1\"\nprofile = \"torch\"\n"
      "platforms = [\"linux-x86_64\"]\nsource = \"" +
      nvidia + "cuda/redist/\"\nmanifest_sha256 = \"" + kOtherSha +
      "\"\n\n[[component]]\nname = \"cuda_nvcc\"\nplatform = \"linux-x86_64\"\nversion = \"12.4.131\"\nurl = \"" + nvidia +
      "cuda/redist/cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.4.131-archive.tar.xz\"\nsha256 = \"" + kSha +
      "\"\nsize = 1234\n\n[[library]]\nname = \"cudnn\"\nplatform = \"linux-x86_64\"\nversion = \"9.10.0.56\"\n"
      "release = \"9.10.0\"\nsource = \"" +
      nvidia + "cudnn/redist/redistrib_9.10.0.json\"\nsource_sha256 = \"" + kOtherSha + "\"\nurl = \"" + nvidia +
      "cudnn/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-9.10.0.56_cuda12-archive.tar.xz\"\nsha256 = \"" + kSha +
      "\"\nsize = 1003184568\n\n[[library]]\nname = \"nccl\"\nplatform = \"linux-x86_64\"\nversion = \"2.28.9\"\n"
      "release = \"2.28.9\"\nsource = \"https://pypi.org/simple/nvidia-nccl-cu12/\"\ndistribution = \"nvidia-nccl-cu12\"\n"
      "url = \"https://files.pythonhosted.org/packages/nvidia_nccl_cu12-2.28.9-py3-none-manylinux_2_18_x86_64.whl\"\n"
      "sha256 = \"" +
      kSha + "\"\nsize = 200000000\n";
  auto lock = parse_lock(kLock, text);
  REQUIRE(lock.ok());
  CHECK(render_lock(*lock) == text);
  // What an install plans from it: each entry's archive as it stands.
  REQUIRE(lock->components.size() == 1);
  CHECK(lock->components[0].archive ==
        Archive{.name = "cuda_nvcc",
                .version = "12.4.131",
                .url = nvidia + "cuda/redist/cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.4.131-archive.tar.xz",
                .sha256 = kSha,
                .size = 1234});
  REQUIRE(lock->libraries.size() == 2);
  CHECK(lock->libraries[1].archive ==
        Archive{.name = "nccl",
                .version = "2.28.9",
                .url = "https://files.pythonhosted.org/packages/nvidia_nccl_cu12-2.28.9-py3-none-manylinux_2_18_x86_64.whl",
                .sha256 = kSha,
                .size = 200000000,
                .distribution = "nvidia-nccl-cu12"});
  CHECK(lock->libraries[1].release == "2.28.9");
  CHECK(lock->libraries[1].source_sha256.empty());
}

TEST_CASE("cuda.lock: a planned archive locked and read back is the archive planned") {
  Archive planned{.name = "cuda_nvcc",
                  .version = "13.2.78",
                  .url = "https://pypi.example/files/nvidia_cuda_nvcc-13.2.78-py3-none-manylinux_2_17_x86_64.whl",
                  .sha256 = kSha,
                  .size = 987654321,
                  .distribution = "nvidia-cuda-nvcc"};
  CudaLock lock;
  lock.request = LockRequest{.version = "13.2", .source = InstallSource::pypi};
  lock.label = "13.2.1";
  lock.profile = "minimal";
  lock.platforms = {"linux-x86_64"};
  lock.source = "https://pypi.example/simple";
  lock.manifest_sha256 = kOtherSha;
  lock.metapackage = "https://pypi.example/files/cuda_toolkit-13.2.1-py2.py3-none-any.whl";
  lock.components = {LockedArchive{.platform = "linux-x86_64", .archive = planned}};
  auto parsed = parse_lock(kLock, render_lock(lock));
  REQUIRE(parsed.ok());
  REQUIRE(parsed->components_for("linux-x86_64").size() == 1);
  CHECK(parsed->components_for("linux-x86_64")[0].archive == planned);
}
