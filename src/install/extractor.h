#pragma once
// Unpacking one redist archive into the staging folder with libarchive, refusing anything
// that could write outside it or plant privileges.

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "install/byte_source.h"
#include "install/core_slots.h"
#include "util/result.h"

namespace cudaenv {

// Where each archive's root files (its LICENSE) are kept: licenses/<component>/LICENSE.
inline constexpr const char* kComponentFilesFolder = "licenses";

// Why an archive member is refused, or nullopt when it is acceptable. `path` is the member's
// path below the archive's top folder; `link_target` a symlink's target.
std::optional<std::string> unsafe_member_path(std::string_view path);
std::optional<std::string> unsafe_symlink_target(std::string_view path, std::string_view target);

// Whether a path names one of the folders every archive merges into (bin, include, lib,
// lib64, nvvm, targets): a symlink there would redirect the other archives' files.
bool is_merged_folder_name(std::string_view path);

// Every symlink under `root` resolves inside it (following chains of links): the last check
// before a staging folder becomes a toolkit, whatever order the archives were written in.
Status check_links_inside(const std::filesystem::path& root);

// The path below the top folder ("cuda_nvcc-...-archive/bin/nvcc" -> "bin/nvcc"); empty for
// the top folder itself.
std::string strip_top_folder(std::string_view path);

// The METADATA of a wheel held in memory (its *.dist-info/METADATA member), at most 1 MiB:
// what a metapackage says it requires. `source` names the wheel in errors.
Result<std::string> read_wheel_metadata(std::string_view wheel, const std::string& source);

// A link member, made only after every archive of the install is written (make_links): while
// archives are extracted side by side no link exists yet, so none can redirect a file of another
// archive, and no hard link depends on whether its target's archive was written first.
struct ArchiveLink {
  std::string path;    // below the staging folder
  std::string target;  // a symlink's as the archive has it (checked by unsafe_symlink_target);
                       // a hard link's path below the staging folder
  bool hard = false;
  std::string component;
  std::filesystem::path archive;
  std::string member;  // as the archive names it
};

// A file that archives of one install ship with different contents.
struct FileOverlap {
  std::string path;                 // below the staging folder
  std::string kept;                 // the component whose file the toolkit has: the first by name
  std::vector<std::string> others;  // by name
};

// The regular files the archives of one install write side by side. Each path is written by one
// archive at a time (libarchive replaces a file by unlinking it and creating it anew, and a
// second writer would find the first's half-made file). Where two components ship one path with
// different contents, the one first by name keeps it, so the toolkit never depends on which
// archive was written first.
class StagedFiles {
 public:
  class Claim {
   public:
    Claim(StagedFiles& files, std::string path) : files_(files), path_(std::move(path)) {}
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    ~Claim() { files_.release(path_); }

   private:
    StagedFiles& files_;
    std::string path_;
  };

  // Waits while another archive writes `path`, lending the core (`turns`, when given) meanwhile;
  // nullptr when the wait was stopped.
  std::unique_ptr<Claim> claim(const std::string& path, const CoreTurns* turns = nullptr);
  // Under a claim of `path`: the component whose file is there, if any.
  std::optional<std::string> owner(const std::string& path) const;
  void set_owner(const std::string& path, const std::string& component);
  // `a`'s and `b`'s copies of `path` differ.
  void add_overlap(const std::string& path, const std::string& a, const std::string& b);
  // The overlaps found, by path.
  std::vector<FileOverlap> overlaps() const;

 private:
  void release(const std::string& path);

  mutable std::mutex mutex_;
  std::condition_variable released_;
  std::set<std::string> held_;
  std::map<std::string, std::string> owners_;               // path -> the component whose file is there
  std::map<std::string, std::set<std::string>> differing_;  // path -> components whose copies differ
};

// What one archive put into the staging folder.
struct UnpackedArchive {
  std::vector<ArchiveLink> links;  // not made yet (make_links)
  std::vector<std::string> files;  // the files it wrote that the staging folder has its copy of
  // A library's members where a library may not write (library_files): not written.
  std::vector<std::string> outside;
};

// Unpacks the archive read from `source` into the folder `staging`. `archive` names it (a wheel,
// by is_wheel, else a tar, plain or compressed with xz or gzip); `component` names it in errors.
// Each archive's top folder is stripped; a wheel gives its nvidia/cu13/ files only
// (wheel_toolkit_path); files at the root go to licenses/<component>/.
// Refuses absolute paths, "..", links that resolve outside, device files, FIFOs, sparse files and
// setuid/setgid bits, before anything of that member is written. A library (cuDNN, NCCL) writes
// only its own files (library_files); its other members are skipped and listed. Links are not
// written but returned, for make_links; a hard link to one of the archive's symlinks is one more
// symlink (as link(2) makes it). `files` is shared by the install's archives; `should_stop` aborts between
// pieces of data. The archive is read to its end: every integrity check it has is verified (xz's
// CRC32, CRC64 or SHA-256, gzip's CRC-32, each zip member's CRC-32), its sizes must match what
// it holds, and data after its end is refused (see Decompressor, ZipReader). `turns` is how the
// extraction shares its core while it waits for a file another archive is writing (and `source`
// for bytes).
Result<UnpackedArchive> extract_archive(ByteSource& source, const std::filesystem::path& archive, const std::string& component,
                                        const std::filesystem::path& staging, StagedFiles& files,
                                        const std::function<bool()>& should_stop, const CoreTurns* turns = nullptr);

// Makes the links of all the archives of an install below `root`, symlinks first, each kind in
// path order, so the outcome never depends on which archive was written first. Nothing is
// followed or replaced: a path that exists already refuses the install (a file or folder an
// archive wrote, a different link), unless it is the same link (two archives ship it); so does a
// link below another link, and a hard link whose target is no regular file of the install by
// then. Missing parent folders are made.
Status make_links(const std::filesystem::path& root, std::vector<ArchiveLink> links);

}  // namespace cudaenv
