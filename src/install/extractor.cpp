#include "install/extractor.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>

#include "install/downloader.h"
#include "install/pypi_index.h"
#include "install/xz_reader.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

using ReadArchive = std::unique_ptr<archive, decltype(&archive_read_free)>;
using WriteArchive = std::unique_ptr<archive, decltype(&archive_write_free)>;

std::vector<std::string> components_of(std::string_view path) {
  std::vector<std::string> out;
  for (std::string& part : split(path, '/')) {
    if (!part.empty() && part != ".") out.push_back(std::move(part));
  }
  return out;
}

const char* kind_refused(mode_t type) {
  switch (type) {
    case AE_IFCHR: return "a character device";
    case AE_IFBLK: return "a block device";
    case AE_IFIFO: return "a FIFO";
    case AE_IFSOCK: return "a socket";
    default: return nullptr;
  }
}

// Redist archives keep everything below one top folder; wheels keep the toolkit under
// nvidia/cu13/ beside their .dist-info.
enum class MemberLayout { redist, wheel };

MemberLayout layout_of(const std::filesystem::path& archive) {
  return archive.extension() == ".whl" ? MemberLayout::wheel : MemberLayout::redist;
}

Error refused(const std::string& component, const std::filesystem::path& archive, const std::string& member,
              const std::string& why) {
  std::string vouched = layout_of(archive) == MemberLayout::wheel ? "package index: report it to whoever runs the index"
                                                                  : "manifest: report it to whoever runs the mirror";
  return make_error(component + ": archive " + archive.string() + " is refused: member '" + member + "' " + why,
                    "nothing was installed; the archive is damaged or hostile, although its sha256 matched the " + vouched +
                        ", and do not use it");
}

std::optional<std::string> unsafe_link(std::string_view path, std::string_view target) {
  if (auto why = unsafe_symlink_target(path, target)) return why;
  if (is_merged_folder_name(path)) return "is a symlink where the toolkit has a folder that archives merge into";
  return std::nullopt;
}

// Checks one member and rewrites its paths to be relative to the staging folder; `skip` is set
// for the top folder itself and for a wheel's files that are no toolkit files. Plain files at an
// archive's root (each has a LICENSE) go to licenses/<component>/, so archives extracted in any
// order never replace each other's (the installer then copies one to the root, in a fixed order).
std::optional<std::string> prepare_member(archive_entry* entry, MemberLayout layout, const std::string& component, bool& skip) {
  skip = false;
  std::string original = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
  if (!original.empty() && original.front() == '/') return "has an absolute path";
  if (const char* kind = kind_refused(archive_entry_filetype(entry))) return std::string("is ") + kind;
  if (archive_entry_mode(entry) & (S_ISUID | S_ISGID)) return "has the setuid or setgid bit";
  if (auto why = unsafe_member_path(original)) return why;
  std::string path;
  if (layout == MemberLayout::wheel) {
    if (archive_entry_hardlink(entry)) return "is a hard link, which no wheel has";
    auto mapped = wheel_toolkit_path(original);
    skip = !mapped || archive_entry_filetype(entry) == AE_IFDIR;  // folders are made for the files in them
    if (skip) return std::nullopt;
    path = *mapped;
  } else {
    path = strip_top_folder(original);
  }
  if (path.empty()) {
    skip = archive_entry_filetype(entry) == AE_IFDIR;
    if (skip) return std::nullopt;
    return "lies outside the archive's top folder";
  }
  if (path.find('/') == std::string::npos && archive_entry_filetype(entry) == AE_IFREG && !archive_entry_hardlink(entry)) {
    if (component.empty() || component == "." || component == ".." || component.find('/') != std::string::npos) {
      return "lies at the root of an archive whose component name is no folder name";
    }
    path = std::string(kComponentFilesFolder) + "/" + component + "/" + path;
  }
  if (const char* hardlink = archive_entry_hardlink(entry)) {
    std::string target = hardlink;
    if (!target.empty() && target.front() == '/') return "is a hard link to an absolute path";
    if (auto why = unsafe_member_path(target)) return "is a hard link that " + *why;
    std::string stripped = strip_top_folder(target);
    if (stripped.empty()) return "is a hard link to the top folder";
    archive_entry_copy_hardlink(entry, stripped.c_str());
  } else if (archive_entry_filetype(entry) == AE_IFLNK) {
    const char* target = archive_entry_symlink(entry);
    if (auto why = unsafe_link(path, target ? target : "")) return why;
  }
  archive_entry_copy_pathname(entry, path.c_str());
  archive_entry_set_perm(entry, archive_entry_perm(entry) & 0777);
  return std::nullopt;
}

// A file's size on disk against its header: libarchive reports some short writes (a full
// disk) only as a warning, or not at all.
std::optional<std::string> size_mismatch(archive_entry* entry) {
  if (archive_entry_filetype(entry) != AE_IFREG || archive_entry_hardlink(entry) || !archive_entry_size_is_set(entry)) {
    return std::nullopt;
  }
  struct stat st {};
  if (::lstat(archive_entry_pathname(entry), &st) != 0)
    return std::string("is missing after extraction: ") + std::strerror(errno);
  if (st.st_size == archive_entry_size(entry)) return std::nullopt;
  return "was written with " + std::to_string(st.st_size) + " bytes, but the archive says " +
         std::to_string(archive_entry_size(entry));
}

Error write_failure(const std::string& component, const std::string& member, const std::string& why) {
  return make_error(component + ": cannot write " + member + " into the staging folder: " + why,
                    "check free space under CUDAENV_ROOT (df), then run the install again; nothing was installed");
}

// A symlink member, or a hard link to one made before it in the same archive (link(2) would make
// it one more symlink with the same target), is kept for make_symlinks instead of being written:
// true then.
Result<bool> defer_symlink(archive_entry* entry, const std::string& component, const std::filesystem::path& archive,
                           const std::string& member, std::vector<ArchiveSymlink>& links) {
  std::string path = archive_entry_pathname(entry);
  if (const char* hardlink = archive_entry_hardlink(entry)) {
    auto linked = std::find_if(links.begin(), links.end(), [&](const ArchiveSymlink& link) { return link.path == hardlink; });
    if (linked == links.end()) return false;
    std::string target = linked->target;
    if (auto why = unsafe_link(path, target))
      return refused(component, archive, member, "is a hard link to a symlink, so it " + *why);
    links.push_back(ArchiveSymlink{path, target, component, archive, member});
    return true;
  }
  if (archive_entry_filetype(entry) != AE_IFLNK) return false;
  links.push_back(ArchiveSymlink{path, archive_entry_symlink(entry), component, archive, member});
  return true;
}

// An open folder, closed with it.
class FolderFd {
 public:
  explicit FolderFd(int fd) : fd_(fd) {}
  FolderFd(FolderFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FolderFd& operator=(FolderFd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~FolderFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string read_link_at(int folder, const char* name) {
  std::string target(4096, '\0');
  ssize_t length = ::readlinkat(folder, name, target.data(), target.size());
  target.resize(length < 0 ? 0 : static_cast<size_t>(length));
  return target;
}

// Walks from `folder` (the staging folder) to the link's own folder one component at a time,
// making missing folders and never following a link (O_NOFOLLOW), then makes the link there
// without replacing anything (symlinkat fails on any existing entry).
Status make_symlink(FolderFd folder, const ArchiveSymlink& link) {
  auto refuse = [&](const std::string& why) { return refused(link.component, link.archive, link.member, why); };
  std::vector<std::string> parts = components_of(link.path);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const char* name = parts[i].c_str();
    if (::mkdirat(folder.get(), name, 0755) != 0 && errno != EEXIST) {
      return write_failure(link.component, link.member, std::strerror(errno));
    }
    FolderFd next(::openat(folder.get(), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next.get() < 0 && (errno == ELOOP || errno == ENOTDIR)) {
      std::string above = join(std::vector<std::string>(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(i) + 1), "/");
      return refuse("is a symlink below '" + above + "', which is a symlink or a file");
    }
    if (next.get() < 0) return write_failure(link.component, link.member, std::strerror(errno));
    folder = std::move(next);
  }
  const char* name = parts.back().c_str();
  if (::symlinkat(link.target.c_str(), folder.get(), name) == 0) return ok_status();
  if (errno != EEXIST) return write_failure(link.component, link.member, std::strerror(errno));
  struct stat existing {};
  if (::fstatat(folder.get(), name, &existing, AT_SYMLINK_NOFOLLOW) != 0) {
    return write_failure(link.component, link.member, std::strerror(errno));
  }
  if (S_ISDIR(existing.st_mode)) return refuse("is a symlink where an archive of the install has a folder");
  if (!S_ISLNK(existing.st_mode)) return refuse("is a symlink where an archive of the install has a file");
  std::string target = read_link_at(folder.get(), name);
  if (target == link.target) return ok_status();  // the same link, shipped by two archives
  return refuse("is a symlink to '" + link.target + "' where an archive of the install has a symlink to '" + target + "'");
}

// Two archives of one install may ship one file, and libarchive replaces a file by unlinking it
// and creating it anew: each path is written by one archive at a time, so no archive finds
// another's half-made file where it just wrote its own (size_mismatch would refuse it).
class PathClaims {
 public:
  class Claim {
   public:
    Claim(PathClaims& claims, std::string path) : claims_(claims), path_(std::move(path)) {}
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    ~Claim() { claims_.release(path_); }

   private:
    PathClaims& claims_;
    std::string path_;
  };

  // Waits while another archive writes `path`.
  std::unique_ptr<Claim> claim(const std::string& path) {
    std::unique_lock lock(mutex_);
    released_.wait(lock, [&] { return !held_.count(path); });
    held_.insert(path);
    return std::make_unique<Claim>(*this, path);
  }

 private:
  void release(const std::string& path) {
    std::lock_guard lock(mutex_);
    held_.erase(path);
    released_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable released_;
  std::set<std::string> held_;
};

PathClaims& written_paths() {
  static PathClaims claims;
  return claims;
}

Status copy_data(archive* in, archive* out, const std::string& component, const std::filesystem::path& path,
                 const std::string& member, const std::function<bool()>& should_stop) {
  const void* block = nullptr;
  size_t size = 0;
  la_int64_t offset = 0;
  while (true) {
    int status = archive_read_data_block(in, &block, &size, &offset);
    if (status == ARCHIVE_EOF) return ok_status();
    if (status < ARCHIVE_WARN) {
      return make_error(component + ": cannot read " + path.string() + ": " + archive_error_string(in),
                        "delete it from the cache and run the install again");
    }
    if (should_stop && should_stop()) return interrupted_error();
    // A warning while writing (a short write on a full disk) is a failure too.
    if (archive_write_data_block(out, block, size, offset) != ARCHIVE_OK) {
      return write_failure(component, member, archive_error_string(out));
    }
  }
}

}  // namespace

bool is_merged_folder_name(std::string_view path) {
  std::vector<std::string> parts = components_of(path);
  if (parts.empty()) return false;
  for (const char* name : {"bin", "include", "lib", "lib64", "nvvm", "targets"}) {
    if (parts.back() == name) return true;
  }
  return false;
}

Status check_links_inside(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path real_root = fs::canonical(root, ec);
  if (ec) return make_error("cannot resolve " + root.string() + ": " + ec.message());
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_symlink(ec)) continue;
    fs::path resolved = fs::weakly_canonical(it->path(), ec);
    if (ec) return make_error("cannot resolve the link " + it->path().string() + ": " + ec.message());
    auto [stop, _] = std::mismatch(real_root.begin(), real_root.end(), resolved.begin(), resolved.end());
    if (stop != real_root.end()) {
      return make_error("the link " + it->path().lexically_relative(root).string() + " -> " +
                            fs::read_symlink(it->path(), ec).string() + " resolves to " + resolved.string() +
                            ", outside the toolkit folder",
                        "nothing was installed; the archives are damaged or hostile: report it to whoever runs the mirror");
    }
  }
  if (ec) return make_error("cannot walk " + root.string() + ": " + ec.message());
  return ok_status();
}

std::string strip_top_folder(std::string_view path) {
  std::vector<std::string> parts = components_of(path);
  if (parts.size() <= 1) return {};
  return join(std::vector<std::string>(parts.begin() + 1, parts.end()), "/");
}

std::optional<std::string> unsafe_member_path(std::string_view path) {
  if (!path.empty() && path.front() == '/') return "has an absolute path";
  for (const std::string& part : components_of(path)) {
    if (part == "..") return "has a '..' component";
  }
  return std::nullopt;
}

// A relative target may climb with leading ".." no higher than the link's own folder's depth
// (those folders are real: libarchive refuses to write through symlinks), and may not climb
// after descending, since a descent may pass through another symlink.
std::optional<std::string> unsafe_symlink_target(std::string_view path, std::string_view target) {
  std::string quoted = "'" + std::string(target) + "'";
  if (target.empty()) return "is a symlink with an empty target";
  if (target.front() == '/') return "is a symlink to the absolute path " + quoted;
  size_t depth = components_of(path).size() - 1;
  size_t climbs = 0;
  bool descended = false;
  for (const std::string& part : components_of(target)) {
    if (part != "..") {
      descended = true;
    } else if (descended) {
      return "is a symlink to " + quoted + ", which climbs after descending";
    } else if (++climbs > depth) {
      return "is a symlink to " + quoted + ", which resolves outside the toolkit folder";
    }
  }
  return std::nullopt;
}

Result<std::string> read_wheel_metadata(std::string_view wheel, const std::string& source) {
  constexpr la_int64_t kMaxMetadataBytes = 1 << 20;
  ReadArchive in(archive_read_new(), archive_read_free);
  archive_read_support_format_zip(in.get());
  Error unreadable = make_error(source + " is not a readable wheel", "check --index-url: the index serves something else");
  if (archive_read_open_memory(in.get(), wheel.data(), wheel.size()) != ARCHIVE_OK) {
    unreadable.message += std::string(": ") + archive_error_string(in.get());
    return unreadable;
  }
  archive_entry* entry = nullptr;
  while (true) {
    int status = archive_read_next_header(in.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status < ARCHIVE_WARN) {
      unreadable.message += std::string(": ") + archive_error_string(in.get());
      return unreadable;
    }
    std::vector<std::string> parts = components_of(archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "");
    if (parts.size() != 2 || !parts[0].ends_with(".dist-info") || parts[1] != "METADATA") continue;
    if (archive_entry_size(entry) > kMaxMetadataBytes) {
      return make_error(source + ": its METADATA is larger than 1 MiB: refused", "the index serves something else than a wheel");
    }
    std::string text(static_cast<size_t>(std::max<la_int64_t>(archive_entry_size(entry), 0)), '\0');
    la_ssize_t read = archive_read_data(in.get(), text.data(), text.size());
    if (read < 0 || static_cast<size_t>(read) != text.size()) {
      unreadable.message += ": its METADATA cannot be read";
      return unreadable;
    }
    return text;
  }
  return make_error(source + " has no .dist-info/METADATA", "the index serves something else than a wheel");
}

Result<std::vector<ArchiveSymlink>> extract_archive(const std::filesystem::path& archive_path, const std::string& component,
                                                    const std::function<bool()>& should_stop, unsigned threads) {
  std::vector<ArchiveSymlink> links;
  ReadArchive in(archive_read_new(), archive_read_free);
  XzReader xz;  // outlives `in`, which reads through it
  archive_read_support_filter_all(in.get());
  archive_read_support_format_tar(in.get());
  archive_read_support_format_zip(in.get());
  WriteArchive out(archive_write_disk_new(), archive_write_free);
  archive_write_disk_set_options(out.get(), ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                                ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
  Status opened = ok_status();
  if (is_xz_file(archive_path)) opened = xz.open(in.get(), archive_path, threads);
  else if (archive_read_open_filename(in.get(), archive_path.c_str(), 1 << 20) != ARCHIVE_OK) {
    opened = make_error("cannot open " + archive_path.string() + ": " + archive_error_string(in.get()));
  }
  if (!opened) {
    return make_error(component + ": " + opened.error().message, "delete it from the cache and run the install again");
  }
  archive_entry* entry = nullptr;
  while (true) {
    int status = archive_read_next_header(in.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status < ARCHIVE_WARN) {
      return make_error(
          component + ": " + archive_path.string() + " is not a readable archive: " + archive_error_string(in.get()),
          "delete it from the cache and run the install again");
    }
    if (should_stop && should_stop()) return interrupted_error();
    std::string member = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    bool skip = false;
    if (auto why = prepare_member(entry, layout_of(archive_path), component, skip)) {
      return refused(component, archive_path, member, *why);
    }
    if (skip) continue;
    Result<bool> deferred = defer_symlink(entry, component, archive_path, member, links);
    if (!deferred) return deferred.take_error();
    if (*deferred) continue;
    std::unique_ptr<PathClaims::Claim> claim;  // folders are never replaced, only made or kept
    if (archive_entry_filetype(entry) != AE_IFDIR) claim = written_paths().claim(archive_entry_pathname(entry));
    int header = archive_write_header(out.get(), entry);
    if (header < ARCHIVE_WARN) {
      return refused(component, archive_path, member, std::string("cannot be written: ") + archive_error_string(out.get()));
    }
    if (header != ARCHIVE_OK) return write_failure(component, member, archive_error_string(out.get()));
    if (archive_entry_size(entry) > 0) {
      CUDAENV_TRY(copy_data(in.get(), out.get(), component, archive_path, member, should_stop));
    }
    if (archive_write_finish_entry(out.get()) != ARCHIVE_OK) {
      return write_failure(component, member, archive_error_string(out.get()));
    }
    if (auto why = size_mismatch(entry)) return write_failure(component, member, *why);
  }
  return links;
}

Status make_symlinks(const std::filesystem::path& root, std::vector<ArchiveSymlink> links) {
  std::sort(links.begin(), links.end(), [](const ArchiveSymlink& a, const ArchiveSymlink& b) {
    return std::tie(a.path, a.component, a.target, a.member) < std::tie(b.path, b.component, b.target, b.member);
  });
  for (const ArchiveSymlink& link : links) {
    FolderFd folder(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (folder.get() < 0) return make_error("cannot open " + root.string() + ": " + std::strerror(errno));
    CUDAENV_TRY(make_symlink(std::move(folder), link));
  }
  return ok_status();
}

}  // namespace cudaenv
