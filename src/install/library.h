#pragma once
// Libraries of a toolkit (cuDNN, NCCL): which archive fits a toolkit's CUDA major, and where
// it comes from. Pure: lock/project_lock fetches what the choice needs.

#include <optional>
#include <string>
#include <vector>

#include "core/cuda_toml.h"
#include "core/setting.h"
#include "install/archive.h"
#include "install/plan.h"
#include "install/redist_manifest.h"
#include "torch/index_parser.h"
#include "util/result.h"

namespace cudaenv {

// One library archive to install into a toolkit's tree, and where it was chosen from.
struct PlannedLibrary {
  Archive archive;            // name "cudnn", version "9.10.0.56"; NCCL's is a wheel ("nvidia-nccl-cu13")
  std::string release;        // the release it comes from: "9.10.0"
  std::string source;         // the manifest (or index page) it was chosen from
  std::string source_sha256;  // of that manifest; "" for an index page
};

// What a library may write into a toolkit: its own headers and libraries (by folder and name
// prefix), so a library archive or wheel never puts a file into bin/, nvvm/ or the toolkit's own
// headers, whatever it carries.
struct LibraryFiles {
  std::string wheel_folder;                               // where its wheel keeps them: "nvidia/nccl"
  std::vector<std::pair<std::string, std::string>> owns;  // {"include", "nccl"}: include/nccl*
  std::string described;                                  // "include/nccl*, lib/libnccl*", for messages
};

// The files library `component` ("cudnn", "nccl") may write; nullopt for a toolkit component.
std::optional<LibraryFiles> library_files(const std::string& component);

// Whether `path`, below the toolkit root, is one of the library's.
bool library_owns(const LibraryFiles& files, std::string_view path);

// cuDNN's redist folder for a CUDA folder: `cudnn_mirror` (CUDAENV_CUDNN_MIRROR) when set, else
// the folder beside it in NVIDIA's layout (.../compute/cuda/redist/ -> .../compute/cudnn/redist/).
Result<std::string> cudnn_base_url(const std::string& cuda_base, const Setting& cudnn_mirror);

// The newest release a version prefix matches ("" matches every release), newest first in `labels`.
Result<std::string> choose_library_release(const LibrarySpec& spec, const std::vector<std::string>& labels_newest_first);

// The `spec.name` archive of a cuDNN-style manifest (entries per CUDA major, "cuda12", "cuda13")
// for the toolkit's major, its url below the manifest's folder (in_folder). No build for that major is an error naming the majors
// that have one.
Result<Archive> choose_library_archive(const RedistManifest& manifest, const std::string& name, const std::string& release,
                                       const std::string& platform, int cuda_major);

// NCCL's wheel project for a CUDA major: 13 -> "nvidia-nccl-cu13".
std::string nccl_distribution(int cuda_major);

// The NCCL wheel of a project page for `platform`: the newest, or the newest of the spec's
// version prefix ("nccl@2.28"). None is an error naming the versions the page has (`page_url`).
Result<IndexFile> choose_nccl_wheel(const std::vector<IndexFile>& files, const LibrarySpec& spec, int cuda_major,
                                    const std::string& platform, const std::string& page_url);

}  // namespace cudaenv
