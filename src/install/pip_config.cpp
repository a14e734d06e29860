#include "install/pip_config.h"

#include "util/strings.h"

namespace cudaenv {

std::vector<std::filesystem::path> pip_config_files(const EnvMap& env, const FileSystemView& disk) {
  std::optional<std::string> explicit_file = env_get(env, "PIP_CONFIG_FILE");
  if (explicit_file == "/dev/null") return {};
  std::vector<fs::path> files;
  std::string xdg_dirs = env_get(env, "XDG_CONFIG_DIRS").value_or("/etc/xdg");
  for (const std::string& dir : split(xdg_dirs, ':')) {
    if (!dir.empty()) files.push_back(fs::path(dir) / "pip" / "pip.conf");
  }
  files.emplace_back("/etc/pip.conf");
  bool explicit_exists = explicit_file && disk.kind(*explicit_file) != EntryKind::missing;
  if (auto home = env_get(env, "HOME"); home && !explicit_exists) {
    files.push_back(fs::path(*home) / ".pip" / "pip.conf");
    files.push_back(fs::path(env_get(env, "XDG_CONFIG_HOME").value_or(*home + "/.config")) / "pip" / "pip.conf");
  }
  if (auto venv = env_get(env, "VIRTUAL_ENV")) files.push_back(fs::path(*venv) / "pip.conf");
  if (explicit_file) files.emplace_back(*explicit_file);
  return files;
}

std::optional<Setting> pip_index_url(const EnvMap& env, const FileSystemView& fs) {
  if (auto url = env_get(env, "PIP_INDEX_URL")) return Setting{*url, OriginKind::environment, "PIP_INDEX_URL"};
  std::optional<Setting> found;
  for (const std::filesystem::path& file : pip_config_files(env, fs)) {
    auto text = fs.read_file(file);
    if (!text) continue;  // pip skips files it cannot read
    if (auto url = pip_config_index_url(*text)) found = Setting{*url, OriginKind::global_file, file.string()};
  }
  return found;
}

std::optional<std::string> pip_config_index_url(std::string_view text) {
  std::optional<std::string> global, install;
  std::string section;
  for (std::string_view line : split(text, '\n')) {
    line = trim(line);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = ascii_lower(trim(line.substr(1, line.size() - 2)));
      continue;
    }
    size_t separator = line.find_first_of("=:");
    if (separator == std::string_view::npos) continue;
    std::string key = ascii_lower(trim(line.substr(0, separator)));
    std::string value(trim(line.substr(separator + 1)));
    if ((key != "index-url" && key != "index_url") || value.empty()) continue;
    if (section == "global") global = value;
    if (section == "install") install = value;
  }
  return install ? install : global;
}

}  // namespace cudaenv
