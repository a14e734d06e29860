#pragma once
// The disk as `cudaenv shim` resolves against it: every answer it gives is also kept as a
// watch (replay/record.h), taken before the answer, so that a change made while the answer is
// read shows as one. The watches are everything the resolution rested on; the shim replays
// its outcome while they all hold.

#include <deque>
#include <string>
#include <vector>

#include "replay/record.h"
#include "util/file_system.h"

namespace cudaenv {

class RecordedFileSystem final : public FileSystemView {
 public:
  EntryKind kind(const fs::path& path) const override;
  bool is_executable(const fs::path& path) const override;
  Result<std::string> read_file(const fs::path& path, std::size_t limit = kSmallFileLimit) const override;
  std::vector<std::string> list_dir(const fs::path& path) const override;
  std::optional<fs::path> read_link(const fs::path& path) const override;

  // Watches `path` as `look` asks, apart from any answer (the working folder's identity).
  void watch(const fs::path& path, replay_look look) const;

  // The watches, once each; false where one could not be taken (a path stat(2) refused).
  bool complete() const { return complete_; }
  const std::vector<replay_watch>& watches() const { return watches_; }

 private:
  RealFileSystem disk_;
  mutable std::deque<std::string> paths_;  // what the watches point into
  mutable std::vector<replay_watch> watches_;
  mutable bool complete_ = true;
};

}  // namespace cudaenv
