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

#include "install/decompressor.h"
#include "install/downloader.h"
#include "install/library.h"
#include "install/plan.h"
#include "install/pypi_index.h"
#include "install/zip_reader.h"
#include "util/file_compare.h"
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

// Where an archive's copy of a file another archive wrote first waits to be compared with it.
constexpr const char* kOverlapPrefix = ".cudaenv-overlap-";

// Redist archives keep everything below one top folder; wheels keep the toolkit under
// nvidia/cu13/ beside their .dist-info.
enum class MemberLayout { redist, wheel };

MemberLayout layout_of(const std::filesystem::path& archive) {
  return is_wheel(archive) ? MemberLayout::wheel : MemberLayout::redist;
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

// What becomes of a member that passed the checks.
enum class Keep {
  yes,
  no,       // the top folder, a wheel's metadata, a folder made anyway for the files in it
  outside,  // a library's member where the library may not write (reported, not written)
};

// Checks one member and rewrites its paths to be relative to the staging folder. Plain files at
// an archive's root (each has a LICENSE) go to licenses/<component>/, so archives extracted in
// any order never replace each other's (the installer then copies one to the root, in a fixed
// order). A library (`library`) keeps only its own files.
std::optional<std::string> prepare_member(archive_entry* entry, MemberLayout layout, const std::string& component,
                                          const std::optional<LibraryFiles>& library, Keep& keep) {
  keep = Keep::yes;
  std::string original = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
  if (!original.empty() && original.front() == '/') return "has an absolute path";
  if (const char* kind = kind_refused(archive_entry_filetype(entry))) return std::string("is ") + kind;
  if (archive_entry_mode(entry) & (S_ISUID | S_ISGID)) return "has the setuid or setgid bit";
  if (auto why = unsafe_member_path(original)) return why;
  bool folder = archive_entry_filetype(entry) == AE_IFDIR;
  std::string path;
  if (layout == MemberLayout::wheel) {
    if (archive_entry_hardlink(entry)) return "is a hard link, which no wheel has";
    auto mapped = wheel_toolkit_path(original);
    if (!mapped || folder) {  // folders are made for the files in them
      keep = Keep::no;
      return std::nullopt;
    }
    if (library && !starts_with(original, library->wheel_folder + "/")) {
      keep = Keep::outside;
      return std::nullopt;
    }
    path = *mapped;
  } else {
    path = strip_top_folder(original);
  }
  if (path.empty()) {
    if (folder) keep = Keep::no;
    if (folder) return std::nullopt;
    return "lies outside the archive's top folder";
  }
  // A library's root files (its LICENSE) go to licenses/<component>/ as any archive's.
  if (library && path.find('/') != std::string::npos && !library_owns(*library, path)) {
    keep = folder ? Keep::no : Keep::outside;
    return std::nullopt;
  }
  std::vector<std::string> parts = components_of(path);
  if (!parts.empty() && parts.back().starts_with(kOverlapPrefix)) {
    return std::string("has a name starting with '") + kOverlapPrefix + "', which cudaenv keeps for itself";
  }
  bool no_folder_name = component.empty() || component == "." || component == ".." || component.find('/') != std::string::npos;
  // A root file and a hard link to one both go below licenses/<component>/.
  auto below_root = [&](std::string& file) -> std::optional<std::string> {
    if (file.find('/') != std::string::npos) return std::nullopt;
    if (no_folder_name) return "lies at the root of an archive whose component name is no folder name";
    file = std::string(kComponentFilesFolder) + "/" + component + "/" + file;
    return std::nullopt;
  };
  if (archive_entry_filetype(entry) == AE_IFREG || archive_entry_hardlink(entry)) {
    if (auto why = below_root(path)) return why;
  }
  if (const char* hardlink = archive_entry_hardlink(entry)) {
    std::string target = hardlink;
    if (!target.empty() && target.front() == '/') return "is a hard link to an absolute path";
    if (auto why = unsafe_member_path(target)) return "is a hard link that " + *why;
    std::string stripped = strip_top_folder(target);
    if (stripped.empty()) return "is a hard link to the top folder";
    if (auto why = below_root(stripped)) return why;
    archive_entry_copy_hardlink(entry, stripped.c_str());
  } else if (archive_entry_filetype(entry) == AE_IFLNK) {
    const char* target = archive_entry_symlink(entry);
    if (auto why = unsafe_link(path, target ? target : "")) return why;
  }
  archive_entry_copy_pathname(entry, path.c_str());
  archive_entry_set_perm(entry, archive_entry_perm(entry) & 0777);
  return std::nullopt;
}

// A file's size on disk against the bytes written into it: libarchive reports some short
// writes (a full disk) only as a warning, or not at all.
std::optional<std::string> size_on_disk_mismatch(const char* path, std::uint64_t written) {
  struct stat st {};
  if (::lstat(path, &st) != 0) return std::string("is missing after extraction: ") + std::strerror(errno);
  if (static_cast<std::uint64_t>(st.st_size) == written) return std::nullopt;
  return "was written with " + std::to_string(st.st_size) + " bytes, but the archive has " + std::to_string(written);
}

Error write_failure(const std::string& component, const std::string& member, const std::string& why) {
  return make_error(component + ": cannot write " + member + " into the staging folder: " + why,
                    "check free space under CUDAENV_ROOT (df), then run the install again; nothing was installed");
}

// A link member is kept for make_links instead of being written: true then. A hard link to a
// symlink the archive has before it is one more symlink (link(2) would make it so).
Result<bool> defer_link(archive_entry* entry, const std::string& component, const std::filesystem::path& archive,
                        const std::string& member, std::vector<ArchiveLink>& links) {
  std::string path = archive_entry_pathname(entry);
  if (const char* hardlink = archive_entry_hardlink(entry)) {
    auto linked = std::find_if(links.begin(), links.end(), [&](const ArchiveLink& link) { return link.path == hardlink; });
    if (linked == links.end()) {
      links.push_back(ArchiveLink{path, hardlink, true, component, archive, member});
      return true;
    }
    if (linked->hard) {
      return refused(component, archive, member, "is a hard link to '" + linked->path + "', which is a hard link itself");
    }
    std::string target = linked->target;
    if (auto why = unsafe_link(path, target))
      return refused(component, archive, member, "is a hard link to a symlink, so it " + *why);
    links.push_back(ArchiveLink{path, target, false, component, archive, member});
    return true;
  }
  if (archive_entry_filetype(entry) != AE_IFLNK) return false;
  links.push_back(ArchiveLink{path, archive_entry_symlink(entry), false, component, archive, member});
  return true;
}

std::string read_link_at(int folder, const char* name) {
  std::string target(4096, '\0');
  ssize_t length = ::readlinkat(folder, name, target.data(), target.size());
  target.resize(length < 0 ? 0 : static_cast<size_t>(length));
  return target;
}

// The folder holding parts.back(), reached from `folder` (the staging folder) one component at a
// time without following a link (O_NOFOLLOW), making missing folders when `make`; on failure,
// why: the errno, or the path of the symlink or file in the way (`blocked`).
struct Walked {
  OpenFd folder;
  int error = 0;
  std::string blocked;
};

Walked walk_to_parent(OpenFd folder, const std::vector<std::string>& parts, bool make) {
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const char* name = parts[i].c_str();
    if (make && ::mkdirat(folder.get(), name, 0755) != 0 && errno != EEXIST) return {OpenFd(-1), errno, ""};
    OpenFd next(::openat(folder.get(), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next.get() < 0 && (errno == ELOOP || errno == ENOTDIR)) {
      return {OpenFd(-1), errno,
              join(std::vector<std::string>(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(i) + 1), "/")};
    }
    if (next.get() < 0) return {OpenFd(-1), errno, ""};
    folder = std::move(next);
  }
  return {std::move(folder), 0, ""};
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISLNK(mode)) return "a symlink";
  return "a file";
}

// Makes the link without replacing anything (symlinkat and linkat fail on any existing entry).
Status make_link(OpenFd root, const ArchiveLink& link) {
  auto refuse = [&](const std::string& why) { return refused(link.component, link.archive, link.member, why); };
  std::string kind = link.hard ? "a hard link" : "a symlink";
  std::vector<std::string> parts = components_of(link.path);
  OpenFd target_folder(-1);
  std::string target_name;
  struct stat target {};
  if (link.hard) {
    std::vector<std::string> target_parts = components_of(link.target);
    Walked walked = walk_to_parent(OpenFd(::dup(root.get())), target_parts, false);
    target_name = target_parts.empty() ? "" : target_parts.back();
    bool found = walked.error == 0 && !target_name.empty() &&
                 ::fstatat(walked.folder.get(), target_name.c_str(), &target, AT_SYMLINK_NOFOLLOW) == 0;
    if (!found || !S_ISREG(target.st_mode)) {
      return refuse("is a hard link to '" + link.target + "', which no archive of the install has as a file");
    }
    target_folder = std::move(walked.folder);
  }
  Walked walked = walk_to_parent(std::move(root), parts, true);
  if (!walked.blocked.empty()) return refuse("is " + kind + " below '" + walked.blocked + "', which is a symlink or a file");
  if (walked.error != 0) return write_failure(link.component, link.member, std::strerror(walked.error));
  int folder = walked.folder.get();
  const char* name = parts.back().c_str();
  int made = link.hard ? ::linkat(target_folder.get(), target_name.c_str(), folder, name, 0)
                       : ::symlinkat(link.target.c_str(), folder, name);
  if (made == 0) return ok_status();
  if (errno != EEXIST) return write_failure(link.component, link.member, std::strerror(errno));
  struct stat existing {};
  if (::fstatat(folder, name, &existing, AT_SYMLINK_NOFOLLOW) != 0) {
    return write_failure(link.component, link.member, std::strerror(errno));
  }
  if (link.hard) {  // the same hard link, shipped by two archives
    if (existing.st_dev == target.st_dev && existing.st_ino == target.st_ino) return ok_status();
    return refuse("is a hard link where an archive of the install has " + std::string(kind_of(existing.st_mode)));
  }
  if (!S_ISLNK(existing.st_mode))
    return refuse("is a symlink where an archive of the install has " + std::string(kind_of(existing.st_mode)));
  std::string existing_target = read_link_at(folder, name);
  if (existing_target == link.target) return ok_status();  // the same link, shipped by two archives
  return refuse("is a symlink to '" + link.target + "' where an archive of the install has a symlink to '" + existing_target +
                "'");
}

// Mode and bytes alike: what makes two archives' copies of one file the same.
Result<bool> same_mode_and_bytes(const std::string& a, const std::string& b) {
  auto open_file = [](const std::string& path) { return OpenFd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)); };
  OpenFd first = open_file(a), second = open_file(b);
  struct stat first_info {
  }, second_info{};
  if (first.get() < 0 || second.get() < 0 || ::fstat(first.get(), &first_info) != 0 || ::fstat(second.get(), &second_info) != 0) {
    return make_error(std::string("cannot compare ") + a + " with the copy of another archive: " + std::strerror(errno));
  }
  if ((first_info.st_mode & 07777) != (second_info.st_mode & 07777)) return false;
  Result<bool> same = same_bytes(first.get(), second.get());
  if (!same) return make_error("cannot compare " + a + " with the copy of another archive: " + same.error().message);
  return same;
}

std::string overlap_path(const std::string& path, const std::string& component) {
  std::string mine = component;
  std::replace(mine.begin(), mine.end(), '/', '_');
  size_t slash = path.rfind('/');
  size_t name = slash == std::string::npos ? 0 : slash + 1;
  return path.substr(0, name) + kOverlapPrefix + mine + "-" + path.substr(name);
}

// `copy` holds this archive's file for `path` (below `root`), which `other` wrote first: the
// component first by name keeps its file (mtime and all), and a difference in mode or bytes is
// recorded.
Status settle_overlap(StagedFiles& files, const std::filesystem::path& root, const std::string& path, const std::string& copy,
                      const std::string& component, const std::string& other, const std::string& member) {
  std::string file = root / path, copied = root / copy;
  Result<bool> same = same_mode_and_bytes(file, copied);
  if (!same) {
    ::unlink(copied.c_str());
    return write_failure(component, member, same.error().message);
  }
  bool mine = component < other;
  if (mine) {
    if (::rename(copied.c_str(), file.c_str()) != 0) return write_failure(component, member, std::strerror(errno));
    files.set_owner(path, component);
  } else if (::unlink(copied.c_str()) != 0) {
    return write_failure(component, member, std::strerror(errno));
  }
  if (!*same) files.add_overlap(path, component, other);
  return ok_status();
}

Error archive_refused(const std::string& component, const std::filesystem::path& archive, const std::string& why) {
  Error error = refused(component, archive, "", why);
  error.message = component + ": archive " + archive.string() + " is refused: " + why;
  return error;
}

// The pieces of one member's data, in order; empty at its end.
using ReadData = std::function<Result<std::span<const std::uint8_t>>()>;

// Writes the members of one archive into the staging folder `root`, each checked before anything
// of it is written; links are kept for make_links. libarchive gets each path made absolute below
// `root` (resolved, so that no folder above it is a symlink that SECURE_SYMLINKS would refuse):
// the members' own paths were checked to be relative and without "..".
class Unpacker {
 public:
  Unpacker(const std::filesystem::path& root, const std::filesystem::path& archive, const std::string& component,
           StagedFiles& files, const std::function<bool()>& should_stop, const CoreTurns* turns)
      : out_(archive_write_disk_new(), archive_write_free),
        root_(root),
        archive_(archive),
        component_(component),
        layout_(layout_of(archive)),
        library_(library_files(component)),
        files_(files),
        should_stop_(should_stop),
        turns_(turns) {
    archive_write_disk_set_options(out_.get(),
                                   ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT);
  }

  const std::filesystem::path& root() const { return root_; }

  // One member, `entry` as the archive has it, its data from `read`. The path below the staging
  // folder when it is a file this archive wrote and keeps; nullopt for a member skipped, a
  // folder, a link (kept for make_links) or a file another archive's copy of won.
  Result<std::optional<std::string>> add(archive_entry* entry, const ReadData& read) {
    std::string member = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    Keep keep = Keep::yes;
    if (auto why = prepare_member(entry, layout_, component_, library_, keep)) {
      return refused(component_, archive_, member, why.value());
    }
    if (keep == Keep::outside) unpacked_.outside.push_back(member);
    if (keep != Keep::yes) return std::optional<std::string>();
    CUDAENV_TRY_ASSIGN(bool deferred, defer_link(entry, component_, archive_, member, unpacked_.links));
    if (deferred) return std::optional<std::string>();
    // What is left is folders, never replaced, only made or kept, and files.
    std::string path = archive_entry_pathname(entry);
    bool file = archive_entry_filetype(entry) != AE_IFDIR;
    std::unique_ptr<StagedFiles::Claim> claim;
    std::optional<std::string> other;
    std::string written_as = path;
    if (file) {
      claim = files_.claim(path, turns_);
      if (!claim) return make_error(component_ + ": the install stopped while " + member + " waited for another archive's copy");
      other = files_.owner(path);
      if (other == component_) other.reset();  // shipped twice by one archive: the later copy, as tar has it
      if (other) written_as = overlap_path(path, component_);
    }
    std::string on_disk = root_ / written_as;
    archive_entry_copy_pathname(entry, on_disk.c_str());
    std::int64_t declared = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : -1;
    // Unset, libarchive writes what comes and no more: set, it would stretch a file whose data
    // is shorter into a sparse file of the declared size.
    archive_entry_unset_size(entry);
    int header = archive_write_header(out_.get(), entry);
    if (header < ARCHIVE_WARN) {
      return refused(component_, archive_, member, std::string("cannot be written: ") + archive_error_string(out_.get()));
    }
    if (header != ARCHIVE_OK) return write_failure(component_, member, archive_error_string(out_.get()));
    std::uint64_t written = 0;
    if (file) CUDAENV_TRY(write_data(read, member, written));
    if (archive_write_finish_entry(out_.get()) != ARCHIVE_OK) {
      return write_failure(component_, member, archive_error_string(out_.get()));
    }
    if (!file) return std::optional<std::string>();
    if (declared >= 0 && written != static_cast<std::uint64_t>(declared)) {
      return refused(component_, archive_, member,
                     "has " + std::to_string(written) + " bytes of data, but declares " + std::to_string(declared));
    }
    if (auto why = size_on_disk_mismatch(on_disk.c_str(), written)) return write_failure(component_, member, *why);
    if (other) {
      CUDAENV_TRY(settle_overlap(files_, root_, path, written_as, component_, *other, member));
      if (files_.owner(path) != component_) return std::optional<std::string>();
    } else {
      files_.set_owner(path, component_);
    }
    unpacked_.files.push_back(path);
    return std::optional<std::string>(path);
  }

  UnpackedArchive take() { return std::move(unpacked_); }

 private:
  Status write_data(const ReadData& read, const std::string& member, std::uint64_t& written) {
    while (true) {
      CUDAENV_TRY_ASSIGN(auto piece, read());
      if (piece.empty()) return ok_status();
      if (should_stop_ && should_stop_()) return interrupted_error();
      if (archive_write_data(out_.get(), piece.data(), piece.size()) != static_cast<la_ssize_t>(piece.size())) {
        return write_failure(component_, member, archive_error_string(out_.get()));
      }
      written += piece.size();
    }
  }

  WriteArchive out_;
  std::filesystem::path root_;
  std::filesystem::path archive_;
  std::string component_;
  MemberLayout layout_;
  std::optional<LibraryFiles> library_;
  StagedFiles& files_;
  const std::function<bool()>& should_stop_;
  const CoreTurns* turns_;
  UnpackedArchive unpacked_;
};

// The tar inside a compressed stream, decoded as its bytes come, for libarchive's tar reader.
// Once the tar has ended, the rest of the stream is decoded too: only the zeros that pad a tar
// may follow its end, and the compressed stream must end with the file.
class TarStream {
 public:
  explicit TarStream(ByteSource& source) : in_(source, 1 << 20), out_(1 << 16) {}

  Status open(archive* reader) {
    CUDAENV_TRY_ASSIGN(auto head, in_.fill(6));
    CUDAENV_TRY_ASSIGN(decoder_, Decompressor::make(Decompressor::format_of(head)));
    if (archive_read_open(reader, this, nullptr, &TarStream::read, nullptr) != ARCHIVE_OK) {
      return make_error(error_ ? error_->message : std::string("its tar cannot be read: ") + archive_error_string(reader));
    }
    return ok_status();
  }

  // Why libarchive failed when it was the stream (decoding, reading the file) that did.
  std::optional<Error> error() const { return error_; }

  // After the tar reader's end of archive, `consumed` bytes into the stream.
  Status finish(std::uint64_t consumed) {
    while (!ended_) CUDAENV_TRY(next());
    if (nonzero_end_ > consumed) {
      return make_error("it has " + std::to_string(nonzero_end_ - consumed) +
                        " bytes of data after the end of its tar archive, which tar would not unpack");
    }
    return ok_status();
  }

 private:
  static la_ssize_t read(archive* reader, void* self, const void** buffer) {
    auto* stream = static_cast<TarStream*>(self);
    *buffer = stream->out_.data();
    Result<size_t> decoded = stream->next();
    if (decoded) return static_cast<la_ssize_t>(*decoded);
    stream->error_ = decoded.take_error();
    archive_set_error(reader, EINVAL, "%s", stream->error_->message.c_str());
    return -1;
  }

  // The next decoded piece into out_ (0 at the stream's end), each one's last nonzero byte noted.
  Result<size_t> next() {
    size_t wanted = 1;
    while (!ended_) {
      CUDAENV_TRY_ASSIGN(auto input, in_.fill(wanted));
      CUDAENV_TRY_ASSIGN(auto step, decoder_->decode(input, out_, in_.ended()));
      in_.consume(step.read);
      in_.unconsume(step.unread);
      ended_ = step.end;
      // A decoder that takes nothing may need more bytes at once (a stream header).
      wanted = step.read == 0 && step.written == 0 ? input.size() + 1 : 1;
      if (step.written > 0) {
        for (size_t i = step.written; i > 0; --i) {
          if (out_[i - 1] != 0) {
            nonzero_end_ = decoded_ + i;
            break;
          }
        }
        decoded_ += step.written;
        return step.written;
      }
      // A decoder that makes no progress at the file's end reports why on the next call; one
      // that still does not is cut short.
      stalls_ = step.read == 0 && in_.ended() ? stalls_ + 1 : 0;
      if (stalls_ > 2) return make_error("it ends before its compressed stream does: the file is cut short");
    }
    return 0;
  }

  SourceBuffer in_;
  std::unique_ptr<Decompressor> decoder_;
  std::vector<std::uint8_t> out_;
  bool ended_ = false;
  int stalls_ = 0;
  std::uint64_t decoded_ = 0;
  std::uint64_t nonzero_end_ = 0;  // just past the last nonzero byte decoded
  std::optional<Error> error_;
};

Result<UnpackedArchive> extract_tar(ByteSource& source, const std::filesystem::path& archive_path, const std::string& component,
                                    Unpacker& unpacker) {
  ReadArchive in(archive_read_new(), archive_read_free);
  archive_read_support_format_tar(in.get());
  TarStream stream(source);  // outlives nothing it reads for: `in` is freed first
  auto unreadable = [&](const char* what) {
    if (auto error = stream.error()) return archive_refused(component, archive_path, error->message);
    return archive_refused(component, archive_path, std::string(what) + archive_error_string(in.get()));
  };
  if (auto opened = stream.open(in.get()); !opened) return archive_refused(component, archive_path, opened.error().message);
  archive_entry* entry = nullptr;
  while (true) {
    int status = archive_read_next_header(in.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status < ARCHIVE_WARN) return unreadable("it is not a readable tar archive: ");
    std::int64_t expected = 0;
    ReadData read = [&]() -> Result<std::span<const std::uint8_t>> {
      const void* block = nullptr;
      size_t size = 0;
      la_int64_t offset = 0;
      int got = archive_read_data_block(in.get(), &block, &size, &offset);
      if (got == ARCHIVE_EOF) return std::span<const std::uint8_t>();
      if (got < ARCHIVE_WARN) return unreadable("its data cannot be read: ");
      // A hole would be a sparse file: written as zeros it could be far larger than the archive.
      if (offset != expected) {
        return refused(component, archive_path, archive_entry_pathname(entry), "is a sparse file, which no toolkit archive has");
      }
      expected += static_cast<std::int64_t>(size);
      return std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(block), size);
    };
    CUDAENV_TRY(unpacker.add(entry, read));
  }
  auto finished = stream.finish(static_cast<std::uint64_t>(archive_filter_bytes(in.get(), 0)));
  if (!finished) return archive_refused(component, archive_path, finished.error().message);
  return unpacker.take();
}

Result<UnpackedArchive> extract_zip(ByteSource& source, const std::filesystem::path& archive_path, const std::string& component,
                                    Unpacker& unpacker) {
  ZipReader zip(source);
  auto bad = [&](Error error) { return archive_refused(component, archive_path, error.message); };
  std::vector<std::optional<std::string>> written;  // per member, the file it became
  using Entry = std::unique_ptr<archive_entry, decltype(&archive_entry_free)>;
  while (true) {
    auto member = zip.next();
    if (!member) return bad(member.take_error());
    if (!*member) break;
    Entry entry(archive_entry_new(), archive_entry_free);
    archive_entry_set_pathname(entry.get(), (*member)->name.c_str());
    archive_entry_set_filetype(entry.get(), (*member)->directory ? AE_IFDIR : AE_IFREG);
    archive_entry_set_perm(entry.get(), (*member)->directory ? 0755 : 0644);  // the central directory says which run
    archive_entry_set_mtime(entry.get(), (*member)->mtime, 0);
    ReadData read = [&]() -> Result<std::span<const std::uint8_t>> {
      auto piece = zip.read_data();
      if (!piece) return bad(piece.take_error());
      return piece;
    };
    CUDAENV_TRY_ASSIGN(auto path, unpacker.add(entry.get(), read));
    written.push_back(std::move(path));
  }
  auto executable = zip.finish();
  if (!executable) return bad(executable.take_error());
  for (size_t i = 0; i < written.size(); ++i) {
    if (!written[i] || !(*executable)[i]) continue;
    std::string file = unpacker.root() / *written[i];
    if (::chmod(file.c_str(), 0755) != 0) return write_failure(component, *written[i], std::strerror(errno));
  }
  return unpacker.take();
}

}  // namespace

std::unique_ptr<StagedFiles::Claim> StagedFiles::claim(const std::string& path, const CoreTurns* turns) {
  std::unique_lock lock(mutex_);
  if (held_.count(path)) {
    // The archive writing it may need a core to finish.
    lock.unlock();
    if (turns) turns->lend();
    lock.lock();
    released_.wait(lock, [&] { return !held_.count(path); });
    lock.unlock();
    if (turns && !turns->take_back()) return nullptr;
    return claim(path, turns);
  }
  held_.insert(path);
  return std::make_unique<Claim>(*this, path);
}

void StagedFiles::release(const std::string& path) {
  std::lock_guard lock(mutex_);
  held_.erase(path);
  released_.notify_all();
}

std::optional<std::string> StagedFiles::owner(const std::string& path) const {
  std::lock_guard lock(mutex_);
  auto found = owners_.find(path);
  if (found == owners_.end()) return std::nullopt;
  return found->second;
}

void StagedFiles::set_owner(const std::string& path, const std::string& component) {
  std::lock_guard lock(mutex_);
  owners_[path] = component;
}

void StagedFiles::add_overlap(const std::string& path, const std::string& a, const std::string& b) {
  std::lock_guard lock(mutex_);
  differing_[path].insert({a, b});
}

std::vector<FileOverlap> StagedFiles::overlaps() const {
  std::lock_guard lock(mutex_);
  std::vector<FileOverlap> found;
  for (const auto& [path, components] : differing_) {
    const std::string& kept = owners_.at(path);
    FileOverlap overlap{path, kept, {}};
    for (const std::string& component : components) {
      if (component != kept) overlap.others.push_back(component);
    }
    found.push_back(std::move(overlap));
  }
  return found;
}

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
  constexpr std::uint64_t kMaxMetadataBytes = 1 << 20;
  MemorySource bytes({reinterpret_cast<const std::uint8_t*>(wheel.data()), wheel.size()});
  ZipReader zip(bytes);
  auto unreadable = [&](const Error& error) {
    return make_error(source + " is not a readable wheel: " + error.message,
                      "check --index-url: the index serves something else");
  };
  std::optional<std::string> metadata;
  while (true) {
    auto member = zip.next();
    if (!member) return unreadable(member.error());
    if (!*member) break;
    std::vector<std::string> parts = components_of((*member)->name);
    if (parts.size() != 2 || !parts[0].ends_with(".dist-info") || parts[1] != "METADATA") continue;
    std::string text;
    while (true) {
      auto piece = zip.read_data();
      if (!piece) return unreadable(piece.error());
      if (piece->empty()) break;
      if (text.size() + piece->size() > kMaxMetadataBytes) {
        return make_error(source + ": its METADATA is larger than 1 MiB: refused",
                          "the index serves something else than a wheel");
      }
      text.append(reinterpret_cast<const char*>(piece->data()), piece->size());
    }
    metadata = std::move(text);
  }
  // Read to its end: the METADATA is one the central directory lists, as pip would read it.
  if (auto finished = zip.finish(); !finished) return unreadable(finished.error());
  if (!metadata) return make_error(source + " has no .dist-info/METADATA", "the index serves something else than a wheel");
  return *metadata;
}

Result<UnpackedArchive> extract_archive(ByteSource& source, const std::filesystem::path& archive_path,
                                        const std::string& component, const std::filesystem::path& staging, StagedFiles& files,
                                        const std::function<bool()>& should_stop, const CoreTurns* turns) {
  std::error_code ec;
  std::filesystem::path root = std::filesystem::canonical(staging, ec);
  if (ec) return make_error("cannot resolve the staging folder " + staging.string() + ": " + ec.message());
  Unpacker unpacker(root, archive_path, component, files, should_stop, turns);
  if (layout_of(archive_path) == MemberLayout::wheel) return extract_zip(source, archive_path, component, unpacker);
  return extract_tar(source, archive_path, component, unpacker);
}

Status make_links(const std::filesystem::path& root, std::vector<ArchiveLink> links) {
  // Symlinks first: a hard link's target is a file, and one to a symlink was made a symlink.
  std::sort(links.begin(), links.end(), [](const ArchiveLink& a, const ArchiveLink& b) {
    return std::tie(a.hard, a.path, a.component, a.target, a.member) < std::tie(b.hard, b.path, b.component, b.target, b.member);
  });
  for (const ArchiveLink& link : links) {
    OpenFd folder(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (folder.get() < 0) return make_error("cannot open " + root.string() + ": " + std::strerror(errno));
    CUDAENV_TRY(make_link(std::move(folder), link));
  }
  return ok_status();
}

}  // namespace cudaenv
