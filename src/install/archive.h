#pragma once
// One archive to fetch, verify and unpack (a redist tar or a wheel), described once for every
// step that holds it: the manifest and the plan, the download, cuda.lock and the install receipt.
// A step that needs more holds an Archive beside it (a download's destination, a lock's platform,
// a library's release), never a copy of its fields. And how many are fetched at once by default.

#include <cstdint>
#include <string>

namespace cudaenv {

struct Archive {
  std::string name;     // the component or library: "cuda_nvcc", "cudnn"
  std::string version;  // its own version ("12.4.131"), not the release label
  // Where it is fetched from. A redist manifest gives it below the manifest's folder (its
  // `relative_path`), a mirror's index below the mirror folder; in_folder() makes it absolute, as
  // every plan, download, lock and receipt has it.
  std::string url;
  std::string sha256;        // lowercase hex, checked before anything is unpacked
  std::uint64_t size = 0;    // bytes, checked likewise
  std::string distribution;  // a wheel's project ("nvidia-cuda-nvcc"); "" for a redist archive

  bool operator==(const Archive&) const = default;
};

// `archive` as fetched from `folder` (a URL ending in '/'): its relative url placed below it.
inline Archive in_folder(const std::string& folder, Archive archive) {
  archive.url = folder + archive.url;
  return archive;
}

}  // namespace cudaenv
