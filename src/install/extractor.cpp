#include "install/extractor.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <lzma.h>
#include <sys/mman.h>
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

#include "install/blocks_ahead.h"
#include "install/downloader.h"
#include "install/lzma2_decoder.h"
#include "install/pypi_index.h"
#include "install/xz_blocks.h"
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

// An open file or folder, closed with it.
class OpenFd {
 public:
  explicit OpenFd(int fd) : fd_(fd) {}
  OpenFd(OpenFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  OpenFd& operator=(OpenFd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~OpenFd() {
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

// Mode and bytes alike: what makes two archives' copies of one file the same.
Result<bool> same_file(const std::string& a, const std::string& b) {
  auto open_file = [](const std::string& path) { return OpenFd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)); };
  OpenFd first = open_file(a), second = open_file(b);
  struct stat first_info {
  }, second_info{};
  if (first.get() < 0 || second.get() < 0 || ::fstat(first.get(), &first_info) != 0 || ::fstat(second.get(), &second_info) != 0) {
    return make_error(std::string("cannot compare ") + a + " with the copy of another archive: " + std::strerror(errno));
  }
  if (first_info.st_size != second_info.st_size || (first_info.st_mode & 07777) != (second_info.st_mode & 07777)) return false;
  std::vector<char> one(1 << 16), two(1 << 16);
  while (true) {
    ssize_t got = ::read(first.get(), one.data(), one.size());
    if (got < 0) return make_error("cannot read " + a + ": " + std::strerror(errno));
    if (got == 0) return true;
    for (ssize_t done = 0; done < got;) {
      ssize_t more = ::read(second.get(), two.data() + done, static_cast<size_t>(got - done));
      if (more <= 0) return false;  // shorter than its size said: it changed under us
      done += more;
    }
    if (std::memcmp(one.data(), two.data(), static_cast<size_t>(got)) != 0) return false;
  }
}

std::string overlap_path(const std::string& path, const std::string& component) {
  std::string mine = component;
  std::replace(mine.begin(), mine.end(), '/', '_');
  size_t slash = path.rfind('/');
  size_t name = slash == std::string::npos ? 0 : slash + 1;
  return path.substr(0, name) + kOverlapPrefix + mine + "-" + path.substr(name);
}

// `copy` holds this archive's file for `path`, which `other` wrote first: the component first by
// name keeps its file (mtime and all), and a difference in mode or bytes is recorded.
Status settle_overlap(StagedFiles& files, const std::string& path, const std::string& copy, const std::string& component,
                      const std::string& other, const std::string& member) {
  Result<bool> same = same_file(path, copy);
  if (!same) {
    ::unlink(copy.c_str());
    return write_failure(component, member, same.error().message);
  }
  bool mine = component < other;
  if (mine) {
    if (::rename(copy.c_str(), path.c_str()) != 0) return write_failure(component, member, std::strerror(errno));
    files.set_owner(path, component);
  } else if (::unlink(copy.c_str()) != 0) {
    return write_failure(component, member, std::strerror(errno));
  }
  if (!*same) files.add_overlap(path, component, other);
  return ok_status();
}

// Reading a .tar.xz for libarchive from the archive mapped into memory. Blocks whose only
// filter is LZMA2 (what xz writes) are decoded by Lzma2Decoder, straight into the ring
// libarchive reads, and idle workers may decode later blocks ahead (BlocksAhead). Other filter
// chains go through liblzma, whose multi-threaded decoder, given more than one thread, decodes
// blocks (xz -T splits an archive into them) on several cores and runs ahead of the tar writer
// as `xz -d | tar -x` would.
class XzReader {
 public:
  XzReader() = default;
  ~XzReader();
  XzReader(const XzReader&) = delete;
  XzReader& operator=(const XzReader&) = delete;

  // Opens `path`, whose sha256 has been checked: false when it does not start with the xz magic
  // bytes or cannot be mapped (libarchive's own filters read it then); else hands the decompressed stream to
  // `reader` (tar format expected). liblzma decodes on up to `threads` threads (see
  // ExtractionQueue); an archive of several plain LZMA2 blocks offers `offer_help` its blocks.
  Result<bool> open(archive* reader, const std::filesystem::path& path, unsigned threads, const OfferHelp& offer_help);

 private:
  static la_ssize_t read(archive* reader, void* self, const void** buffer);
  la_ssize_t next_from_blocks(archive* reader, const void** buffer);
  la_ssize_t next_from_liblzma(archive* reader, const void** buffer);
  Status start_liblzma(unsigned threads);
  void release_read_input(size_t read);

  void* mapped_ = nullptr;  // the whole archive
  size_t mapped_size_ = 0;
  size_t released_ = 0;                         // the first bytes of the mapping, given back by release_read_input
  std::optional<std::vector<XzBlock>> blocks_;  // set when Lzma2Decoder decodes them
  std::shared_ptr<BlocksAhead> ahead_;          // shared with helpers, for an archive of several blocks
  size_t block_ = 0;                            // the block being decoded
  std::uint64_t block_decoded_ = 0;
  bool block_started_ = false;
  std::unique_ptr<Lzma2Decoder> lzma2_;
  std::vector<std::uint8_t> decoded_ahead_;  // the block a helper decoded, being read
  lzma_stream stream_ = LZMA_STREAM_INIT;
  std::vector<std::uint8_t> out_;
  bool finished_ = false;
};

// Each extraction may use this much for decoder threads; liblzma falls back to fewer threads
// (or one) rather than exceed it, which keeps `cudaenv install` within its memory budget.
constexpr std::uint64_t kThreadingMemoryLimit = 16ull << 20;

XzReader::~XzReader() {
  if (ahead_) ahead_->stop();  // before the mapping the helpers read goes
  lzma_end(&stream_);
  if (mapped_) ::munmap(mapped_, mapped_size_);
}

Result<bool> XzReader::open(archive* reader, const std::filesystem::path& path, unsigned threads, const OfferHelp& offer_help) {
  // Mapped, not read: the decoder reads the page cache itself instead of a copy of it. The file
  // is this install's own download, under its lock, so nothing truncates it while mapped.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error("cannot open " + path.string() + ": " + std::strerror(errno));
  static const unsigned char magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
  unsigned char head[sizeof magic] = {};
  bool xz = ::pread(fd, head, sizeof head, 0) == static_cast<ssize_t>(sizeof head) && std::memcmp(head, magic, sizeof magic) == 0;
  struct stat info {};
  void* mapped = xz && ::fstat(fd, &info) == 0 ? ::mmap(nullptr, static_cast<size_t>(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
                                               : MAP_FAILED;
  ::close(fd);
  // A file system that cannot map files (some FUSE mounts: ENODEV), or too little address space
  // for the whole archive (ENOMEM): libarchive's own xz filter reads it in pieces instead.
  if (!xz || mapped == MAP_FAILED) return false;
  mapped_ = mapped;
  mapped_size_ = static_cast<size_t>(info.st_size);
  ::madvise(mapped_, mapped_size_, MADV_SEQUENTIAL);
  auto blocks = plain_lzma2_blocks({static_cast<const std::uint8_t*>(mapped_), mapped_size_});
  if (!blocks) return make_error("cannot read " + path.string() + ": " + blocks.error().message);
  if (*blocks) {
    blocks_ = std::move(*blocks);
    if (offer_help && blocks_->size() > 1) {
      // One block waiting per helper: the reader takes it within moments of finishing its own,
      // and the memory stays at a block or two (xz -T -6 writes blocks of 24 MiB).
      ahead_ = std::make_shared<BlocksAhead>(std::span(static_cast<const std::uint8_t*>(mapped_), mapped_size_), *blocks_, 1);
      offer_help([ahead = ahead_] { ahead->help(); });
    }
  } else if (auto started = start_liblzma(threads); !started) {
    return make_error(started.error().message + " for " + path.string());
  }
  if (archive_read_open(reader, this, nullptr, &XzReader::read, nullptr) != ARCHIVE_OK) {
    return make_error("cannot read " + path.string() + ": " + archive_error_string(reader));
  }
  return true;
}

Status XzReader::start_liblzma(unsigned threads) {
  stream_.next_in = static_cast<const std::uint8_t*>(mapped_);
  stream_.avail_in = mapped_size_;
  lzma_mt options{};
  options.threads = std::max(1u, threads);
  options.memlimit_threading = kThreadingMemoryLimit;
  options.memlimit_stop = UINT64_MAX;
  // The archive matched its manifest's sha256 before extraction: the xz check (CRC64 of the
  // content, 1.5-3.5% of the decoding time) could only tell what that already proved.
  options.flags = LZMA_CONCATENATED | LZMA_IGNORE_CHECK;
  // One thread: the plain decoder, which needs no block hand-over between threads.
  lzma_ret started = options.threads > 1 ? lzma_stream_decoder_mt(&stream_, &options)
                                         : lzma_stream_decoder(&stream_, options.memlimit_stop, options.flags);
  if (started != LZMA_OK) return make_error("cannot start the xz decoder");
  // As xz's own output buffer is small: it stays in the core's cache between liblzma and the
  // tar writer.
  out_.resize(64 << 10);
  return ok_status();
}

// What the decoder has read leaves this process's resident memory (the page cache keeps it), so
// that a mapped 1 GB archive costs no more memory than a read buffer would.
void XzReader::release_read_input(size_t read) {
  constexpr size_t kReleaseStep = 4 << 20;
  if (read - released_ < kReleaseStep) return;
  size_t end = read & ~(kReleaseStep - 1);
  ::madvise(static_cast<char*>(mapped_) + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

la_ssize_t XzReader::read(archive* reader, void* self, const void** buffer) {
  auto* xz = static_cast<XzReader*>(self);
  return xz->blocks_ ? xz->next_from_blocks(reader, buffer) : xz->next_from_liblzma(reader, buffer);
}

la_ssize_t XzReader::next_from_blocks(archive* reader, const void** buffer) {
  std::vector<XzBlock>& blocks = *blocks_;
  while (block_ < blocks.size()) {
    const XzBlock& block = blocks[block_];
    if (!block_started_ && ahead_) {
      if (auto decoded = ahead_->take(block_)) {
        if (!*decoded) {
          archive_set_error(reader, EINVAL, "%s", decoded->error().message.c_str());
          return -1;
        }
        decoded_ahead_ = std::move(**decoded);
        ++block_;
        if (decoded_ahead_.empty()) continue;
        *buffer = decoded_ahead_.data();
        return static_cast<la_ssize_t>(decoded_ahead_.size());
      }
    }
    if (!block_started_) {
      start_block(lzma2_, {static_cast<const std::uint8_t*>(mapped_), mapped_size_}, block);
      block_decoded_ = 0;
      block_started_ = true;
    }
    release_read_input(block.data_offset + lzma2_->consumed());
    Result<std::span<const std::uint8_t>> piece = next_piece(*lzma2_, block, block_decoded_);
    if (!piece) {
      archive_set_error(reader, EINVAL, "%s", piece.error().message.c_str());
      return -1;
    }
    if (!piece->empty()) {
      *buffer = piece->data();
      return static_cast<la_ssize_t>(piece->size());
    }
    ++block_;
    block_started_ = false;
  }
  return 0;
}

la_ssize_t XzReader::next_from_liblzma(archive* reader, const void** buffer) {
  *buffer = out_.data();
  stream_.next_out = out_.data();
  stream_.avail_out = out_.size();
  while (!finished_ && stream_.avail_out == out_.size()) {
    release_read_input(mapped_size_ - stream_.avail_in);
    lzma_ret status = lzma_code(&stream_, LZMA_FINISH);
    if (status == LZMA_STREAM_END) {
      finished_ = true;
    } else if (status != LZMA_OK) {
      archive_set_error(reader, EINVAL, "xz data is corrupt or truncated (liblzma error %d)", static_cast<int>(status));
      return -1;
    }
  }
  return static_cast<la_ssize_t>(out_.size() - stream_.avail_out);
}

}  // namespace

std::unique_ptr<StagedFiles::Claim> StagedFiles::claim(const std::string& path) {
  std::unique_lock lock(mutex_);
  released_.wait(lock, [&] { return !held_.count(path); });
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

Result<std::vector<ArchiveLink>> extract_archive(const std::filesystem::path& archive_path, const std::string& component,
                                                 StagedFiles& files, const std::function<bool()>& should_stop, unsigned threads,
                                                 const OfferHelp& offer_help) {
  std::vector<ArchiveLink> links;
  ReadArchive in(archive_read_new(), archive_read_free);
  XzReader xz;  // outlives `in`, which reads through it
  archive_read_support_filter_all(in.get());
  archive_read_support_format_tar(in.get());
  archive_read_support_format_zip(in.get());
  WriteArchive out(archive_write_disk_new(), archive_write_free);
  archive_write_disk_set_options(out.get(), ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                                ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
  Status opened = ok_status();
  Result<bool> xz_opened = xz.open(in.get(), archive_path, threads, offer_help);
  if (!xz_opened) opened = xz_opened.take_error();
  else if (!*xz_opened && archive_read_open_filename(in.get(), archive_path.c_str(), 1 << 20) != ARCHIVE_OK) {
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
    Result<bool> deferred = defer_link(entry, component, archive_path, member, links);
    if (!deferred) return deferred.take_error();
    if (*deferred) continue;
    // What is left is folders, never replaced, only made or kept, and files.
    std::string path = archive_entry_pathname(entry);
    std::unique_ptr<StagedFiles::Claim> claim;
    std::optional<std::string> other;
    if (archive_entry_filetype(entry) != AE_IFDIR) {
      claim = files.claim(path);
      other = files.owner(path);
      if (other == component) other.reset();  // shipped twice by one archive: the later copy, as tar has it
      if (other) archive_entry_copy_pathname(entry, overlap_path(path, component).c_str());
    }
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
    if (other) CUDAENV_TRY(settle_overlap(files, path, archive_entry_pathname(entry), component, *other, member));
    else if (claim) files.set_owner(path, component);
  }
  return links;
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
