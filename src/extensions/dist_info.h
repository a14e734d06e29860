#pragma once
// The installed distributions of one sys.path folder, as their *.dist-info says: which files each
// installed (RECORD), and its name, version and the torch it pins (METADATA). Untrusted text:
// bounded reads, anything unreadable is skipped.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/file_system.h"

namespace cudaenv {

struct Distribution {
  std::string name;
  std::string version;
  std::optional<std::string> requires_torch;  // "2.4.1" from Requires-Dist: torch==2.4.1
};

struct InstalledFiles {
  std::vector<std::filesystem::path> dist_infos;
  // a file's path relative to the folder, as RECORD writes it ("torch/_C.so") -> its index in
  // dist_infos; entries outside the folder ("../../bin/x") are left out
  std::unordered_map<std::string, std::size_t> owner;
};

// Every *.dist-info of `dir` and the files its RECORD lists.
InstalledFiles read_installed_files(const FileSystemView& fs, const std::filesystem::path& dir);

// The METADATA of one dist-info; none when it has no Name.
std::optional<Distribution> read_distribution(const FileSystemView& fs, const std::filesystem::path& dist_info);

// What a version's local part says it was built for: "2.8.3+cu12torch2.4cxx11abiTRUE" -> torch
// "2.4", CUDA "12"; "0.0.29+cu124" -> CUDA "12.4".
std::optional<std::string> torch_in_version(std::string_view version);
std::optional<std::string> cuda_in_version(std::string_view version);

}  // namespace cudaenv
