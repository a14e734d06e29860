#include "core/toolkits.h"

#include <algorithm>
#include <set>

#include "core/hook_state.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

bool toolkit_order(const Toolkit& a, const Toolkit& b) {
  if (a.version && b.version) return *a.version != *b.version ? *a.version < *b.version : a.name < b.name;
  if (a.version != b.version) return a.version.has_value();
  return a.name < b.name;
}

Toolkit toolkit_entry(const FileSystemView& fs, const fs::path& versions_dir, const std::string& name, ToolkitSource source) {
  Toolkit toolkit;
  toolkit.name = name;
  toolkit.version = parse_version(name);
  toolkit.source = source;
  fs::path entry = versions_dir / name;
  if (auto target = fs.read_link(entry)) {
    toolkit.registered = true;
    toolkit.home = target->is_absolute() ? *target : (versions_dir / *target).lexically_normal();
  } else {
    toolkit.home = entry;
  }
  toolkit.present = fs.kind(toolkit.home / "bin") == EntryKind::directory;
  return toolkit;
}

// The first root is the user's, the second the shared one.
ToolkitSource root_source(size_t index) { return index == 0 ? ToolkitSource::user_root : ToolkitSource::shared_root; }

// PATH entries compare equal regardless of a trailing slash or "." segments.
std::string normal_dir(const fs::path& dir) {
  std::string text = dir.lexically_normal().string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

}  // namespace

std::vector<Toolkit> list_toolkits(const FileSystemView& fs, const Layout& layout) {
  std::vector<Toolkit> toolkits;
  std::set<std::string> seen;
  auto roots = layout.version_roots();
  for (size_t i = 0; i < roots.size(); ++i) {
    for (const std::string& name : fs.list_dir(roots[i])) {
      if (name.empty() || name[0] == '.' || !seen.insert(name).second) continue;
      toolkits.push_back(toolkit_entry(fs, roots[i], name, root_source(i)));
    }
  }
  std::sort(toolkits.begin(), toolkits.end(), toolkit_order);
  return toolkits;
}

std::optional<Toolkit> ToolkitIndex::find(const std::string& name) const {
  if (all_) {
    for (const Toolkit& toolkit : *all_) {
      if (toolkit.name == name) return toolkit;
    }
    return std::nullopt;
  }
  if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos) return std::nullopt;
  auto roots = layout_.version_roots();
  for (size_t i = 0; i < roots.size(); ++i) {
    fs::path entry = roots[i] / name;
    // A dangling link is an entry too: listed, and reported as missing its bin/.
    if (fs_.kind(entry) == EntryKind::missing && !fs_.read_link(entry)) continue;
    return toolkit_entry(fs_, roots[i], name, root_source(i));
  }
  return std::nullopt;
}

std::optional<Toolkit> ToolkitIndex::newest_match(const Version& wanted) const {
  std::optional<std::string> best_name;
  std::optional<Version> best;
  auto consider = [&](const std::string& name, const std::optional<Version>& version) {
    if (!version || !version_matches(wanted, *version)) return;
    if (!best || *version > *best || (*version == *best && name < *best_name)) best_name = name, best = version;
  };
  if (all_) {
    for (const Toolkit& toolkit : *all_) consider(toolkit.name, toolkit.version);
  } else {
    std::set<std::string> seen;
    for (const fs::path& root : layout_.version_roots()) {
      for (const std::string& name : fs_.list_dir(root)) {
        if (!name.empty() && name[0] != '.' && seen.insert(name).second) consider(name, parse_version(name));
      }
    }
  }
  if (!best_name) return std::nullopt;
  return find(*best_name);
}

const std::vector<Toolkit>& ToolkitIndex::all() const {
  if (!all_) all_ = list_toolkits(fs_, layout_);
  return *all_;
}

std::optional<fs::path> find_on_path(const FileSystemView& fs, const EnvMap& env, const std::string& program,
                                     const fs::path& skip_dir) {
  auto path = env_get(env, "PATH");
  if (!path) return std::nullopt;
  std::string skip = normal_dir(skip_dir);
  for (const std::string& dir : split(*path, ':')) {
    if (dir.empty() || normal_dir(dir) == skip) continue;
    fs::path candidate = fs::path(dir) / program;
    if (fs.is_executable(candidate)) return candidate;
  }
  return std::nullopt;
}

// /usr/bin/nvcc -> ../lib/cuda/bin/nvcc style links lead to the real toolkit folder.
static fs::path follow_links(const FileSystemView& fs, fs::path path) {
  for (int hops = 0; hops < 16; ++hops) {
    auto target = fs.read_link(path);
    if (!target) break;
    path = target->is_absolute() ? *target : (path.parent_path() / *target).lexically_normal();
  }
  return path;
}

std::optional<Toolkit> find_system_toolkit(const FileSystemView& fs, const EnvMap& env, const fs::path& shims_dir) {
  Toolkit toolkit;
  toolkit.name = "system";
  toolkit.source = ToolkitSource::system;
  const fs::path fallback = "/usr/local/cuda";
  bool fallback_exists = fs.is_executable(fallback / "bin/nvcc");
  // The shell hook's own PATH entry (a project's toolkit) is not the system's.
  if (auto nvcc = find_on_path(fs, without_hook_changes(env), "nvcc", shims_dir)) {
    toolkit.home = follow_links(fs, *nvcc).parent_path().parent_path();
    // A wrapper script in /usr/local/bin is not a toolkit; trust only a folder with headers.
    bool looks_like_toolkit =
        fs.kind(toolkit.home / "include/cuda.h") == EntryKind::file || fs.kind(toolkit.home / "version.json") == EntryKind::file;
    if (looks_like_toolkit || !fallback_exists) return toolkit;
  }
  if (!fallback_exists) return std::nullopt;
  toolkit.home = fallback;
  return toolkit;
}

std::vector<std::string> toolkits_with_program(const FileSystemView& fs, const std::vector<Toolkit>& toolkits,
                                               const std::string& program) {
  std::vector<std::string> names;
  for (const Toolkit& toolkit : toolkits) {
    if (fs.is_executable(toolkit.bin_dir() / program)) names.push_back(toolkit.name);
  }
  return names;
}

const char* source_label(ToolkitSource source) {
  switch (source) {
    case ToolkitSource::user_root: return "user";
    case ToolkitSource::shared_root: return "shared";
    case ToolkitSource::system: return "system";
  }
  return "user";
}

}  // namespace cudaenv
