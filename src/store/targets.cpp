#include "store/targets.h"

#include <algorithm>
#include <cstring>
#include <system_error>

#include "core/settings_table.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

constexpr const char* kExtension = ".toml";

std::optional<std::string> target_name_of(const std::string& file_name) {
  if (!file_name.ends_with(kExtension)) return std::nullopt;
  std::string name = file_name.substr(0, file_name.size() - std::strlen(kExtension));
  if (!is_valid_target_name(name)) return std::nullopt;
  return name;
}

Result<Target> read_target(const FileSystemView& fs, const fs::path& path) {
  CUDAENV_TRY_ASSIGN(auto text, fs.read_file(path));
  return parse_target(path, text);
}

std::string saved_names(const FileSystemView& fs, const Layout& layout) {
  std::vector<std::string> names;
  for (const TargetFile& file : list_targets(fs, layout)) {
    if (!file.shadowed) names.push_back(file.name);
  }
  return names.empty() ? "none is saved" : "saved: " + join(names, ", ");
}

}  // namespace

std::vector<TargetFile> list_targets(const FileSystemView& fs, const Layout& layout) {
  std::vector<TargetFile> files;
  std::vector<fs::path> dirs = layout.target_dirs();
  for (size_t i = 0; i < dirs.size(); ++i) {
    for (const std::string& entry : fs.list_dir(dirs[i])) {
      auto name = target_name_of(entry);
      if (!name) continue;
      bool shadowed = std::any_of(files.begin(), files.end(), [&](const TargetFile& file) { return file.name == *name; });
      fs::path path = dirs[i] / entry;
      files.push_back(TargetFile{*name, path, i > 0, shadowed, read_target(fs, path)});
    }
  }
  return files;
}

Result<Target> load_target(const FileSystemView& fs, const Layout& layout, const std::string& name) {
  if (!is_valid_target_name(name)) return invalid_target_name(name, "target");
  for (const fs::path& dir : layout.target_dirs()) {
    fs::path path = dir / (name + kExtension);
    if (fs.kind(path) != EntryKind::missing) return read_target(fs, path);
  }
  return make_error("no target named " + name + " (" + saved_names(fs, layout) + ")",
                    "save it on the GPU machine with `cudaenv target save " + name +
                        "`, or write one by hand: `cudaenv target save " + name + " --driver 535.104.05 --gpu 8.0`");
}

Result<fs::path> save_target(const Layout& layout, const Target& target) {
  fs::path dir = layout.target_dirs().front();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error("cannot create " + dir.string() + ": " + ec.message());
  fs::path path = dir / (target.name + kExtension);
  CUDAENV_TRY(write_file_atomically(path, render_target(target)));
  return path;
}

Result<fs::path> remove_target(const FileSystemView& fs, const Layout& layout, const std::string& name) {
  if (!is_valid_target_name(name)) return invalid_target_name(name, "target remove");
  std::vector<fs::path> dirs = layout.target_dirs();
  fs::path path = dirs.front() / (name + kExtension);
  if (fs.kind(path) == EntryKind::missing) {
    for (size_t i = 1; i < dirs.size(); ++i) {
      fs::path shared = dirs[i] / (name + kExtension);
      if (fs.kind(shared) != EntryKind::missing) {
        return make_error("target " + name + " is in the shared root (" + shared.string() + "), which cudaenv only reads",
                          "ask whoever keeps the shared root to remove it");
      }
    }
    return make_error("no target named " + name + " (" + saved_names(fs, layout) + ")", "see `cudaenv target list`");
  }
  std::error_code ec;
  fs::remove(path, ec);
  if (ec) return make_error("cannot remove " + path.string() + ": " + ec.message());
  return path;
}

std::optional<Setting> target_setting(const EnvMap& env, const std::optional<CudaToml>& project) {
  static const SettingPlaces places{nullptr, kTargetSetting.variable, "name"};
  std::optional<std::string> from_project = project ? project->target : std::nullopt;
  Setting setting = pick_setting(places, "", env, from_project, project ? project->path : fs::path(), "");
  if (setting.kind == OriginKind::fallback) return std::nullopt;
  return setting;
}

Result<std::optional<SelectedTarget>> select_target(const FileSystemView& fs, const EnvMap& env, const Layout& layout,
                                                    const std::optional<CudaToml>& project) {
  std::optional<Setting> setting = target_setting(env, project);
  if (!setting) return std::optional<SelectedTarget>();
  // A project file's name was checked when it was read.
  if (!is_valid_target_name(setting->value)) return invalid_target_name(setting->value, kTargetSetting.variable);
  auto target = load_target(fs, layout, setting->value);
  if (!target) {
    Error error = target.take_error();
    error.message = "the target " + setting->as_written("[target] name") + ": " + error.message;
    return error;
  }
  return std::optional<SelectedTarget>(SelectedTarget{std::move(*target), std::move(*setting)});
}

}  // namespace cudaenv
