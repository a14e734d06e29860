#pragma once
// Where a lock's archives are fetched from, and which of those places a lock may name by itself:
// the trust model of cuda.lock (docs/locks.md). A lock is input, not authority: it says which
// bytes (sha256, size), while the places they come from are NVIDIA's and PyPI's, the ones the
// user names or configures, or, once the user trusts the lock, the ones it names. Pure.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lock/lock_file.h"
#include "util/result.h"
#include "util/strings.h"  // url_origin

namespace cudaenv {

enum class PlaceKind { redist_folder, cudnn_folder, package_index };

// The place an archive comes from and its name there.
struct ArchivePlace {
  PlaceKind kind = PlaceKind::redist_folder;
  std::string root;      // a folder ending in '/', or a package index's root without one
  std::string relative;  // the archive's path below the folder; a wheel's file name
  bool operator==(const ArchivePlace&) const = default;
};

// The place of one of the lock's archives: a redist lock's component lies in toolkit.source, a
// cuDNN archive in the folder of its manifest (its `source`), a wheel on the package index of a
// pypi lock or of its project page (NCCL). An archive whose URL is not where its lock says is an
// error naming it and `path`.
Result<ArchivePlace> archive_place(const CudaLock& lock, const LockedArchive& locked, const std::filesystem::path& path);

// What NVIDIA and PyPI publish, which any lock may name.
struct DefaultPlaces {
  std::string redist_folder;              // NVIDIA's CUDA folder, ending in '/'
  std::string cudnn_folder;               // NVIDIA's cuDNN folder, ending in '/'
  std::string package_index;              // PyPI's root
  std::vector<std::string> file_origins;  // where PyPI's pages send downloads (url_origin form)
};

// Whether `locked` at `place` comes from NVIDIA or PyPI: a wheel only from the default index
// and one of its file hosts.
bool is_default_place(const ArchivePlace& place, const LockedArchive& locked, const DefaultPlaces& defaults);

// "the CUDA folder", "the cuDNN folder", "the package index": what a message calls a kind.
const char* place_kind_name(PlaceKind kind);

}  // namespace cudaenv
