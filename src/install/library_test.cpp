#include <catch2/catch.hpp>

#include "core/cuda_toml.h"
#include "core/settings_table.h"
#include "install/library.h"
#include "support/cudnn_manifest.h"

using namespace cudaenv;
using cudaenv::testing::kCudnnManifest;

namespace {

// A single-variant manifest (redistrib_8.9.7.29.json): one archive per platform, its major only in its name.
const char* kSingleVariant = R"({
  "release_product": "cudnn-v8-9-cuda-12",
  "cudnn": {"name": "cuDNN", "license": "cudnn", "version": "8.9.7.29",
    "linux-x86_64": {"relative_path": "cudnn/linux-x86_64/cudnn-linux-x86_64-8.9.7.29_cuda12-archive.tar.xz",
                     "sha256": "4444444444444444444444444444444444444444444444444444444444444444", "size": "700"}}
})";

RedistManifest manifest(const char* text) {
  auto parsed = parse_redist_manifest(text, "redistrib.json");
  REQUIRE(parsed.ok());
  return *parsed;
}

}  // namespace

TEST_CASE("libraries: the newest release a prefix matches") {
  std::vector<std::string> labels = {"9.22.0", "9.10.2", "9.10.0", "8.9.6"};
  CHECK(*choose_library_release(LibrarySpec{"cudnn", ""}, labels) == "9.22.0");
  CHECK(*choose_library_release(LibrarySpec{"cudnn", "9.10"}, labels) == "9.10.2");
  CHECK(*choose_library_release(LibrarySpec{"cudnn", "8"}, labels) == "8.9.6");
  auto none = choose_library_release(LibrarySpec{"cudnn", "7.6"}, labels);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message == "no cuDNN release matches 7.6");
  CHECK(none.error().hint == "releases offered (newest first): 9.22.0, 9.10.2, 9.10.0, 8.9.6");
}

TEST_CASE("libraries: the cuDNN variant matching the toolkit's CUDA major") {
  RedistManifest cudnn = manifest(kCudnnManifest);
  auto for_12 = choose_library_archive(cudnn, "cudnn", "9.10.0", "linux-x86_64", 12);
  REQUIRE(for_12.ok());
  CHECK(for_12->version == "9.10.0.56");
  CHECK(for_12->url == "cudnn/linux-x86_64/cudnn-linux-x86_64-9.10.0.56_cuda12-archive.tar.xz");
  CHECK(for_12->size == 1003184568);
  CHECK(choose_library_archive(cudnn, "cudnn", "9.10.0", "linux-x86_64", 11)->size == 900);

  auto for_13 = choose_library_archive(cudnn, "cudnn", "9.10.0", "linux-x86_64", 13);
  REQUIRE_FALSE(for_13.ok());
  CHECK(for_13.error().message == "cuDNN 9.10.0 has no build for CUDA 13 on linux-x86_64");
  CHECK(for_13.error().hint.find("it has builds for CUDA 11, CUDA 12") == 0);

  auto arm_11 = choose_library_archive(cudnn, "cudnn", "9.10.0", "linux-aarch64", 11);
  REQUIRE_FALSE(arm_11.ok());
  CHECK(arm_11.error().hint.find("it has builds for CUDA 12:") == 0);

  auto sbsa = choose_library_archive(cudnn, "cudnn", "9.10.0", "linux-sbsa", 12);
  REQUIRE_FALSE(sbsa.ok());
  CHECK(sbsa.error().message == "cuDNN 9.10.0 has no archive for linux-sbsa");
  CHECK(sbsa.error().hint == "it has archives for: linux-aarch64, linux-x86_64");
}

TEST_CASE("libraries: a single-variant cuDNN manifest is only for the major in its file names") {
  RedistManifest single = manifest(kSingleVariant);
  CHECK(choose_library_archive(single, "cudnn", "8.9.7.29", "linux-x86_64", 12).ok());
  auto wrong = choose_library_archive(single, "cudnn", "8.9.7.29", "linux-x86_64", 11);
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message == "cuDNN 8.9.7.29 has no build for CUDA 11 on linux-x86_64");
  CHECK(wrong.error().hint.find("it has builds for CUDA 12:") == 0);
}

TEST_CASE("libraries: cuDNN's folder sits beside the CUDA folder, or CUDAENV_CUDNN_MIRROR names it") {
  Setting none = env_setting(kCudnnMirrorSetting, {});
  CHECK(*cudnn_base_url("https://developer.download.nvidia.com/compute/cuda/redist/", none) ==
        "https://developer.download.nvidia.com/compute/cudnn/redist/");
  CHECK(*cudnn_base_url("http://127.0.0.1:8080/nvidia/cuda/redist/", none) == "http://127.0.0.1:8080/nvidia/cudnn/redist/");
  auto unknown = cudnn_base_url("https://mirror.example/cuda-12/", none);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().hint.find("CUDAENV_CUDNN_MIRROR") != std::string::npos);
  Setting set = env_setting(kCudnnMirrorSetting, {{"CUDAENV_CUDNN_MIRROR", "file:///srv/cudnn"}});
  CHECK(*cudnn_base_url("https://mirror.example/cuda-12/", set) == "file:///srv/cudnn/");
}

TEST_CASE("libraries: cuda.toml's [cuda] libraries and lock") {
  auto parsed =
      parse_cuda_toml("/p/cuda.toml", "[cuda]\nversion = \"12.4\"\nlibraries = [\"cudnn@9.10\", \"nccl\"]\nlock = true\n");
  REQUIRE(parsed.ok());
  CHECK(parsed->libraries == std::vector<std::string>{"cudnn@9.10", "nccl"});
  CHECK(parsed->lock);
  CHECK(parsed->warnings.empty());
  auto unknown = parse_cuda_toml("/p/cuda.toml", "[cuda]\nlibraries = [\"tensorrt\"]\n");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message ==
        "/p/cuda.toml:2:13: [cuda] libraries names 'tensorrt', which is not a library cudaenv installs");
  auto not_bool = parse_cuda_toml("/p/cuda.toml", "[cuda]\nlock = \"yes\"\n");
  REQUIRE_FALSE(not_bool.ok());
  CHECK(not_bool.error().message == "/p/cuda.toml:2:8: [cuda] lock must be true or false, not a string");
}

TEST_CASE("libraries: the NCCL wheel for the toolkit's major, newest or the newest of a prefix") {
  const std::string x86 = "-py3-none-manylinux_2_18_x86_64.whl", arm = "-py3-none-manylinux_2_18_aarch64.whl";
  std::vector<IndexFile> files;
  for (const char* version : {"2.27.7", "2.28.3", "2.28.9"}) {
    std::string name = std::string("nvidia_nccl_cu13-") + version + x86;
    files.push_back(IndexFile{name, "https://i.example/files/" + name, false, std::string(64, 'a'), 0, false});
  }
  std::string sbsa = "nvidia_nccl_cu13-2.29.1" + arm;
  files.push_back(IndexFile{sbsa, "https://i.example/files/" + sbsa, false, std::string(64, 'a'), 0, false});
  const std::string page = "https://i.example/simple/nvidia-nccl-cu13/";
  CHECK(nccl_distribution(12) == "nvidia-nccl-cu12");
  auto newest = choose_nccl_wheel(files, LibrarySpec{"nccl", ""}, 13, "linux-x86_64", page);
  REQUIRE(newest.ok());
  CHECK(newest->filename == "nvidia_nccl_cu13-2.28.9" + x86);
  auto pinned = choose_nccl_wheel(files, LibrarySpec{"nccl", "2.27"}, 13, "linux-x86_64", page);
  REQUIRE(pinned.ok());
  CHECK(pinned->filename == "nvidia_nccl_cu13-2.27.7" + x86);
  CHECK(choose_nccl_wheel(files, LibrarySpec{"nccl", ""}, 13, "linux-sbsa", page)->filename == sbsa);

  auto none = choose_nccl_wheel(files, LibrarySpec{"nccl", "2.26"}, 13, "linux-x86_64", page);
  REQUIRE(!none.ok());
  CHECK(none.error().message == "no NCCL release matches 2.26 on " + page);
  CHECK(none.error().hint == "releases offered for CUDA 13 (newest first): 2.28.9, 2.28.3, 2.27.7");
  CHECK(none.error().kind == ErrorKind::usage);
  auto other_major = choose_nccl_wheel(files, LibrarySpec{"nccl", ""}, 12, "linux-x86_64", page);
  REQUIRE(!other_major.ok());
  CHECK(other_major.error().message.find("no linux-x86_64 wheel of nvidia-nccl-cu12") != std::string::npos);
  CHECK(!choose_nccl_wheel(files, LibrarySpec{"nccl", "2.x"}, 13, "linux-x86_64", page).ok());
}
