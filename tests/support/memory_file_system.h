#pragma once
// An in-memory FileSystemView for unit tests: files, directories, symlinks, exec bits.

#include <map>
#include <set>

#include "util/file_system.h"

namespace cudaenv::testing {

class MemoryFileSystem final : public FileSystemView {
 public:
  // Creates the parent folders too.
  MemoryFileSystem& file(const fs::path& path, std::string content = {}, bool executable = false);
  MemoryFileSystem& dir(const fs::path& path);
  MemoryFileSystem& symlink(const fs::path& path, const fs::path& target);

  EntryKind kind(const fs::path& path) const override;
  bool is_executable(const fs::path& path) const override;
  Result<std::string> read_file(const fs::path& path, std::size_t limit = kSmallFileLimit) const override;
  std::vector<std::string> list_dir(const fs::path& path) const override;
  std::optional<fs::path> read_link(const fs::path& path) const override;

 private:
  // Follows symlinks in every component, like the kernel.
  std::optional<fs::path> resolve(const fs::path& path, int depth = 0) const;

  std::map<fs::path, std::string> files_;
  std::set<fs::path> executables_;
  std::set<fs::path> dirs_{"/"};
  std::map<fs::path, fs::path> links_;
};

// A machine with toolkits 11.8.0 to 12.10.0 in /home/u/.cudaenv, 13.0 registered from
// /opt/cuda-13, and the folders /home/u/proj/src/deep.
MemoryFileSystem machine_with_toolkits();

}  // namespace cudaenv::testing
