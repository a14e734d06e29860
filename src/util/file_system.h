#pragma once
// The read-only view of the disk that pure logic (version selection, toolkit
// listing) works against, so tests can hand it an in-memory tree instead.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cudaenv {

namespace fs = std::filesystem;

enum class EntryKind { missing, file, directory, other };

class FileSystemView {
 public:
  virtual ~FileSystemView() = default;
  // Follows symlinks, like stat(2).
  virtual EntryKind kind(const fs::path& path) const = 0;
  virtual bool is_executable(const fs::path& path) const = 0;
  virtual std::optional<std::string> read_file(const fs::path& path) const = 0;
  // Names of the entries in a directory, sorted; empty if it is not one.
  virtual std::vector<std::string> list_dir(const fs::path& path) const = 0;
  // The target of a symlink, or nullopt if `path` is not a symlink.
  virtual std::optional<fs::path> read_link(const fs::path& path) const = 0;
};

class RealFileSystem final : public FileSystemView {
 public:
  EntryKind kind(const fs::path& path) const override;
  bool is_executable(const fs::path& path) const override;
  std::optional<std::string> read_file(const fs::path& path) const override;
  std::vector<std::string> list_dir(const fs::path& path) const override;
  std::optional<fs::path> read_link(const fs::path& path) const override;
};

}  // namespace cudaenv
