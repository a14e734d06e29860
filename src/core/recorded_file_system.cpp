#include "core/recorded_file_system.h"

#include <cstring>

namespace cudaenv {

void RecordedFileSystem::watch(const fs::path& path, replay_look look) const {
  replay_watch taken{};
  const std::string& kept = paths_.emplace_back(path.string());
  if (!replay_observe(kept.c_str(), look, &taken)) complete_ = false;
  for (const replay_watch& seen : watches_) {
    if (seen.kind == taken.kind && std::strcmp(seen.path, taken.path) == 0) {
      paths_.pop_back();
      return;
    }
  }
  watches_.push_back(taken);
}

EntryKind RecordedFileSystem::kind(const fs::path& path) const {
  watch(path, REPLAY_IDENTITY);
  return disk_.kind(path);
}

bool RecordedFileSystem::is_executable(const fs::path& path) const {
  watch(path, REPLAY_IDENTITY);
  return disk_.is_executable(path);
}

Result<std::string> RecordedFileSystem::read_file(const fs::path& path, std::size_t limit) const {
  watch(path, REPLAY_CONTENT);
  return disk_.read_file(path, limit);
}

std::vector<std::string> RecordedFileSystem::list_dir(const fs::path& path) const {
  watch(path, REPLAY_CONTENT);
  return disk_.list_dir(path);
}

std::optional<fs::path> RecordedFileSystem::read_link(const fs::path& path) const {
  watch(path, REPLAY_LINK_IDENTITY);
  return disk_.read_link(path);
}

}  // namespace cudaenv
