#pragma once
// Unpacking one redist archive into the staging folder with libarchive, refusing anything
// that could write outside it or plant privileges.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// A symlink member, made only after every archive of the install is written (make_symlinks):
// while archives are extracted side by side no link exists yet, so none can redirect a file of
// another archive, whatever the timing.
struct ArchiveSymlink {
  std::string path;    // below the staging folder
  std::string target;  // as the archive has it, checked by unsafe_symlink_target
  std::string component;
  std::filesystem::path archive;
  std::string member;  // as the archive names it
};

// Extracts `archive` into the current working directory, which the caller has made the
// staging folder (so libarchive's relative-path safety checks apply to it alone). Each
// archive's top folder is stripped; a wheel (.whl) gives its nvidia/cu13/ files only
// (wheel_toolkit_path); files at the root go to licenses/<component>/. Refuses absolute paths, "..", links that resolve outside,
// device files, FIFOs and setuid/setgid bits, before anything of that member is written.
// Symlinks are not written but returned, for make_symlinks; a hard link to one of them is one
// more symlink (as link(2) makes it). `component` names the archive in errors; `should_stop`
// aborts between blocks. The archive has matched its manifest's sha256 (an .xz file's own check
// is not computed again). An .xz archive of several blocks decodes on up to `threads` threads.
Result<std::vector<ArchiveSymlink>> extract_archive(const std::filesystem::path& archive, const std::string& component,
                                                    const std::function<bool()>& should_stop, unsigned threads);

// Makes the symlinks of all the archives of an install below `root`, in path order, so the
// outcome never depends on which archive was written first. Nothing is followed or replaced: a
// path that exists already refuses the install (a file or folder an archive wrote, a different
// link), unless it is the same link with the same target (two archives ship it); so does a
// link below another link. Missing parent folders are made.
Status make_symlinks(const std::filesystem::path& root, std::vector<ArchiveSymlink> links);

}  // namespace cudaenv
