#include "support/memory_file_system.h"

namespace cudaenv::testing {

MemoryFileSystem machine_with_toolkits() {
  MemoryFileSystem fs;
  for (const char* version : {"11.8.0", "12.1.0", "12.1.1", "12.4.1", "12.9.0", "12.10.0"}) {
    fs.file(std::string("/home/u/.cudaenv/versions/") + version + "/bin/nvcc", "", true);
  }
  fs.file("/opt/cuda-13/bin/nvcc", "", true);
  fs.symlink("/home/u/.cudaenv/versions/13.0", "/opt/cuda-13");
  fs.dir("/home/u/proj/src/deep");
  return fs;
}

MemoryFileSystem& MemoryFileSystem::dir(const fs::path& path) {
  for (fs::path p = path; p.has_relative_path(); p = p.parent_path()) dirs_.insert(p);
  return *this;
}

MemoryFileSystem& MemoryFileSystem::file(const fs::path& path, std::string content, bool executable) {
  dir(path.parent_path());
  files_[path] = std::move(content);
  if (executable) executables_.insert(path);
  return *this;
}

MemoryFileSystem& MemoryFileSystem::symlink(const fs::path& path, const fs::path& target) {
  dir(path.parent_path());
  links_[path] = target;
  return *this;
}

std::optional<fs::path> MemoryFileSystem::resolve(const fs::path& path, int depth) const {
  if (depth > 16) return std::nullopt;
  fs::path current = "/";
  for (const auto& part : path.lexically_normal().relative_path()) {
    if (part.empty()) continue;
    current /= part;
    auto link = links_.find(current);
    if (link != links_.end()) {
      fs::path target = link->second.is_absolute() ? link->second : current.parent_path() / link->second;
      auto resolved = resolve(target, depth + 1);
      if (!resolved) return std::nullopt;
      current = *resolved;
    }
  }
  return current;
}

EntryKind MemoryFileSystem::kind(const fs::path& path) const {
  auto real = resolve(path);
  if (!real) return EntryKind::missing;
  if (files_.count(*real)) return EntryKind::file;
  if (dirs_.count(*real)) return EntryKind::directory;
  return EntryKind::missing;
}

bool MemoryFileSystem::is_executable(const fs::path& path) const {
  auto real = resolve(path);
  return real && executables_.count(*real) > 0;
}

Result<std::string> MemoryFileSystem::read_file(const fs::path& path, std::size_t limit) const {
  auto real = resolve(path);
  if (real && dirs_.count(*real)) return not_regular_file_error(path, "a folder");
  auto it = real ? files_.find(*real) : files_.end();
  if (it == files_.end()) return make_error("cannot read " + path.string() + ": No such file or directory");
  if (it->second.size() > limit) return file_too_large_error(path, limit);
  return it->second;
}

std::vector<std::string> MemoryFileSystem::list_dir(const fs::path& path) const {
  std::set<std::string> names;
  auto real = resolve(path);
  if (!real || !dirs_.count(*real)) return {};
  auto collect = [&](const fs::path& entry) {
    if (entry.parent_path() == *real && entry != *real) names.insert(entry.filename().string());
  };
  for (const auto& [p, _] : files_) collect(p);
  for (const auto& p : dirs_) collect(p);
  for (const auto& [p, _] : links_) collect(p);
  return {names.begin(), names.end()};
}

std::optional<fs::path> MemoryFileSystem::read_link(const fs::path& path) const {
  auto it = links_.find(path.lexically_normal());
  if (it == links_.end()) return std::nullopt;
  return it->second;
}

}  // namespace cudaenv::testing
