#include "lock/lock_places.h"

#include <algorithm>

#include "util/strings.h"

namespace cudaenv {

namespace {

// The path below `folder` of a URL in it; "" for one outside it, or one that climbs out of it.
std::string path_below(std::string_view url, std::string_view folder) {
  if (folder.empty() || folder.back() != '/' || !starts_with(url, folder)) return {};
  std::string_view relative = url.substr(folder.size());
  if (relative.empty() || relative.find_first_of("?#\\") != std::string_view::npos) return {};
  for (const std::string& part : split(relative, '/')) {
    if (part.empty() || part == "." || part == ".." || ascii_lower(part).find("%2e") != std::string::npos) return {};
  }
  return std::string(relative);
}

std::string file_name_of(std::string_view url) { return std::string(url.substr(url.rfind('/') + 1)); }

Error misplaced(const std::filesystem::path& path, const LockedArchive& locked, PlaceKind kind, const std::string& root) {
  return make_error(path.string() + ": " + locked.archive.name + " (" + locked.platform + ") is locked at " + locked.archive.url +
                        ", which is not in " + place_kind_name(kind) + " " + root + " the lock names for it",
                    kDamagedLockHint);
}

Result<ArchivePlace> wheel_place(const CudaLock& lock, const LockedArchive& locked, const std::filesystem::path& path) {
  // A library's wheel names its project page (INDEX/<distribution>/); a toolkit's wheel comes
  // from the lock's own index.
  std::string root = lock.source;
  if (!locked.source.empty()) {
    std::string page_tail = "/" + locked.archive.distribution + "/";
    if (!locked.source.ends_with(page_tail)) {
      return make_error(path.string() + ": " + locked.archive.name + " (" + locked.platform + ") names the page " +
                            locked.source + ", which is not its project " + locked.archive.distribution +
                            "'s page on a package index",
                        kDamagedLockHint);
    }
    root = locked.source.substr(0, locked.source.size() - page_tail.size());
  } else if (lock.request.source != InstallSource::pypi) {
    return make_error(
        path.string() + ": " + locked.archive.name + " (" + locked.platform + ") is a wheel without its package index",
        kDamagedLockHint);
  }
  std::string name = file_name_of(locked.archive.url);
  if (!name.ends_with(".whl")) return misplaced(path, locked, PlaceKind::package_index, root);
  return ArchivePlace{.kind = PlaceKind::package_index, .root = root, .relative = name};
}

}  // namespace

const char* place_kind_name(PlaceKind kind) {
  switch (kind) {
    case PlaceKind::redist_folder: return "the CUDA folder";
    case PlaceKind::cudnn_folder: return "the cuDNN folder";
    case PlaceKind::package_index: break;
  }
  return "the package index";
}

Result<ArchivePlace> archive_place(const CudaLock& lock, const LockedArchive& locked, const std::filesystem::path& path) {
  if (!locked.archive.distribution.empty()) return wheel_place(lock, locked, path);
  if (lock.request.source == InstallSource::pypi && locked.source.empty()) {
    return make_error(path.string() + ": " + locked.archive.name + " (" + locked.platform +
                          ") has no distribution, which every " + "wheel of a lock of source = \"pypi\" has",
                      kDamagedLockHint);
  }
  // A library's archive lies beside the manifest it was chosen from; a component in the lock's folder.
  PlaceKind kind = locked.source.empty() ? PlaceKind::redist_folder : PlaceKind::cudnn_folder;
  std::string root = locked.source.empty() ? lock.source : locked.source.substr(0, locked.source.rfind('/') + 1);
  std::string relative = path_below(locked.archive.url, root);
  if (relative.empty()) return misplaced(path, locked, kind, root);
  return ArchivePlace{.kind = kind, .root = root, .relative = relative};
}

bool is_default_place(const ArchivePlace& place, const LockedArchive& locked, const DefaultPlaces& defaults) {
  switch (place.kind) {
    case PlaceKind::redist_folder: return place.root == defaults.redist_folder;
    case PlaceKind::cudnn_folder: return place.root == defaults.cudnn_folder;
    case PlaceKind::package_index: break;
  }
  const std::vector<std::string>& hosts = defaults.file_origins;
  return place.root == defaults.package_index &&
         std::find(hosts.begin(), hosts.end(), url_origin(locked.archive.url)) != hosts.end();
}

}  // namespace cudaenv
