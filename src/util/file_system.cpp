#include "util/file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace cudaenv {

EntryKind RealFileSystem::kind(const fs::path& path) const {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return EntryKind::missing;
  if (S_ISREG(st.st_mode)) return EntryKind::file;
  if (S_ISDIR(st.st_mode)) return EntryKind::directory;
  return EntryKind::other;
}

bool RealFileSystem::is_executable(const fs::path& path) const {
  return kind(path) == EntryKind::file && ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::string> RealFileSystem::read_file(const fs::path& path) const {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string content;
  char buffer[8192];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) content.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  if (n < 0) return std::nullopt;
  return content;
}

std::vector<std::string> RealFileSystem::list_dir(const fs::path& path) const {
  std::vector<std::string> names;
  DIR* dir = ::opendir(path.c_str());
  if (!dir) return names;
  while (const dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<fs::path> RealFileSystem::read_link(const fs::path& path) const {
  char buffer[4096];
  ssize_t n = ::readlink(path.c_str(), buffer, sizeof buffer);
  if (n < 0 || static_cast<size_t>(n) == sizeof buffer) return std::nullopt;
  return fs::path(std::string(buffer, static_cast<size_t>(n)));
}

}  // namespace cudaenv
