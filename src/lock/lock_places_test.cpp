#include <catch2/catch.hpp>

#include "lock/lock_places.h"

using namespace cudaenv;

namespace {

const std::filesystem::path kLock = "/clone/cuda.lock";
const std::string kSha(64, 'a');
const std::string kNvidia = "https://developer.download.nvidia.com/compute/cuda/redist/";
const std::string kNvidiaCudnn = "https://developer.download.nvidia.com/compute/cudnn/redist/";
const std::string kNvcc = "cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.4.131-archive.tar.xz";
const std::string kWheel = "nvidia_nccl_cu12-2.28.9-py3-none-manylinux_2_18_x86_64.whl";

const DefaultPlaces kDefaults{kNvidia, kNvidiaCudnn, "https://pypi.org/simple", {"https://files.pythonhosted.org"}};

LockedArchive archive(const std::string& name, const std::string& url) {
  return LockedArchive{.platform = "linux-x86_64",
                       .archive = {.name = name, .version = "1.0", .url = url, .sha256 = kSha, .size = 1}};
}

CudaLock redist_lock(const std::string& source) {
  CudaLock lock;
  lock.label = "12.4.1";
  lock.source = source;
  return lock;
}

}  // namespace

TEST_CASE("a component lies in its lock's folder, at its path there") {
  CudaLock lock = redist_lock("http://mirror.local/cuda/redist/");
  auto place = archive_place(lock, archive("cuda_nvcc", "http://mirror.local/cuda/redist/" + kNvcc), kLock);
  REQUIRE(place);
  CHECK(*place == ArchivePlace{PlaceKind::redist_folder, "http://mirror.local/cuda/redist/", kNvcc});
}

TEST_CASE("a component elsewhere than its lock's folder is a damaged lock, whatever the folder") {
  // The attack: NVIDIA's folder named as the source, another server's archive as the URL.
  CudaLock lock = redist_lock(kNvidia);
  for (const std::string& url : {"http://evil.example/cuda/redist/" + kNvcc, kNvidia + "../../../evil/" + kNvcc,
                                 kNvidia + "a/%2E%2E/" + kNvcc, kNvidia + kNvcc + "?x=1", kNvidia}) {
    auto place = archive_place(lock, archive("cuda_nvcc", url), kLock);
    REQUIRE_FALSE(place);
    CHECK(place.error().message.find("/clone/cuda.lock: cuda_nvcc (linux-x86_64) is locked at " + url) == 0);
    CHECK(place.error().message.find("which is not in the CUDA folder " + kNvidia) != std::string::npos);
  }
}

TEST_CASE("a cuDNN archive lies beside its manifest") {
  CudaLock lock = redist_lock(kNvidia);
  LockedArchive cudnn = archive("cudnn", kNvidiaCudnn + "cudnn/linux-x86_64/cudnn-9.10.0.56_cuda12-archive.tar.xz");
  cudnn.source = kNvidiaCudnn + "redistrib_9.10.0.json";
  auto place = archive_place(lock, cudnn, kLock);
  REQUIRE(place);
  CHECK(place->kind == PlaceKind::cudnn_folder);
  CHECK(place->root == kNvidiaCudnn);
  CHECK(is_default_place(*place, cudnn, kDefaults));
  cudnn.archive.url = "https://evil.example/cudnn-9.10.0.56_cuda12-archive.tar.xz";
  CHECK_FALSE(archive_place(lock, cudnn, kLock));
}

TEST_CASE("a wheel lies on the index of its project page, or of its pypi lock") {
  CudaLock lock = redist_lock(kNvidia);
  LockedArchive nccl = archive("nccl", "https://files.pythonhosted.org/packages/ab/cd/" + kWheel);
  nccl.archive.distribution = "nvidia-nccl-cu12";
  nccl.source = "https://pypi.org/simple/nvidia-nccl-cu12/";
  auto place = archive_place(lock, nccl, kLock);
  REQUIRE(place);
  CHECK(*place == ArchivePlace{PlaceKind::package_index, "https://pypi.org/simple", kWheel});
  CHECK(is_default_place(*place, nccl, kDefaults));
  // On PyPI's page, but served by another host: not PyPI's file.
  nccl.archive.url = "https://evil.example/" + kWheel;
  CHECK_FALSE(is_default_place(*archive_place(lock, nccl, kLock), nccl, kDefaults));
  // A page that is not the project's.
  nccl.source = "https://pypi.org/simple/torch/";
  CHECK_FALSE(archive_place(lock, nccl, kLock));

  CudaLock pypi = redist_lock("http://proxy.local/simple");
  pypi.request.source = InstallSource::pypi;
  LockedArchive nvcc = archive("cuda_nvcc", "http://proxy.local/files/nvidia_cuda_nvcc-13.2.75-py3-none-any.whl");
  nvcc.archive.distribution = "nvidia-cuda-nvcc";
  auto wheel = archive_place(pypi, nvcc, kLock);
  REQUIRE(wheel);
  CHECK(wheel->root == "http://proxy.local/simple");
  CHECK(wheel->relative == "nvidia_cuda_nvcc-13.2.75-py3-none-any.whl");
  CHECK_FALSE(is_default_place(*wheel, nvcc, kDefaults));
  nvcc.archive.distribution.clear();
  CHECK_FALSE(archive_place(pypi, nvcc, kLock));
}

TEST_CASE("only NVIDIA's folders and PyPI are places any lock may name") {
  LockedArchive nvcc = archive("cuda_nvcc", kNvidia + kNvcc);
  CHECK(is_default_place(ArchivePlace{PlaceKind::redist_folder, kNvidia, kNvcc}, nvcc, kDefaults));
  CHECK_FALSE(is_default_place(ArchivePlace{PlaceKind::redist_folder, "http://127.0.0.1:8080/", kNvcc}, nvcc, kDefaults));
  CHECK_FALSE(is_default_place(ArchivePlace{PlaceKind::redist_folder, kNvidiaCudnn, kNvcc}, nvcc, kDefaults));
}

TEST_CASE("a URL's origin names the server") {
  CHECK(url_origin("http://127.0.0.1:8080/cuda/redist/") == "http://127.0.0.1:8080");
  CHECK(url_origin("HTTPS://User:pw@Files.PythonHosted.org/packages/x.whl") == "https://files.pythonhosted.org");
  CHECK(url_origin("https://h?q=1") == "https://h");
  CHECK(url_origin("file:///srv/redist/") == "file://");
  CHECK(url_origin("no scheme").empty());
}
