#include "lock/lock_file.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/toml_reader.h"
#include "core/version.h"
#include "install/redist_manifest.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// JSON's string escapes are all valid in a TOML basic string.
std::string toml_string(std::string_view value) { return json_quote(value); }

std::string toml_list(const std::vector<std::string>& values) {
  std::vector<std::string> parts;
  for (const std::string& value : values) parts.push_back(toml_string(value));
  return "[" + join(parts, ", ") + "]";
}

void line(std::string& out, const char* key, const std::string& value) {
  out += key;
  out += " = " + toml_string(value) + "\n";
}

void render_archive(std::string& out, const char* table, const LockedArchive& locked) {
  const Archive& archive = locked.archive;
  out += "\n[[";
  out += table;
  out += "]]\n";
  line(out, "name", archive.name);
  line(out, "platform", locked.platform);
  line(out, "version", archive.version);
  if (!locked.release.empty()) line(out, "release", locked.release);
  if (!locked.source.empty()) line(out, "source", locked.source);
  if (!locked.source_sha256.empty()) line(out, "source_sha256", locked.source_sha256);
  if (!archive.distribution.empty()) line(out, "distribution", archive.distribution);
  line(out, "url", archive.url);
  line(out, "sha256", archive.sha256);
  out += "size = " + std::to_string(archive.size) + "\n";
}

bool all_of_chars(std::string_view text, std::string_view extra) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || extra.find(c) != std::string_view::npos;
  });
}

bool is_sha256(std::string_view text) {
  return text.size() == 64 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool has_scheme(std::string_view url) {
  return starts_with(url, "https://") || starts_with(url, "http://") || starts_with(url, "file://");
}

// An archive URL whose last segment can name the downloaded file.
bool is_archive_url(std::string_view url) {
  if (!has_scheme(url) || url.find_first_of(" \t\r\n\"'\\") != std::string_view::npos) return false;
  std::string_view file = url.substr(url.rfind('/') + 1);
  return all_of_chars(file, "._+-") && file != "." && file != "..";
}

// Reads one table of the lock, naming each wrong value by file:line:col and its key.
class TableReader {
 public:
  TableReader(const std::filesystem::path& path, const toml::table& table, std::string where)
      : path_(path), table_(table), where_(std::move(where)) {}

  Result<std::string> text(const char* key, bool required = true) const {
    const toml::node* node = table_.get(key);
    if (!node) {
      if (!required) return std::string();
      return make_error(path_.string() + ": " + where_ + " has no " + key, kDamagedLockHint);
    }
    if (!node->is_string()) return wrong(*node, key, "must be a string");
    return *node->value<std::string>();
  }

  Result<std::string> checked(const char* key, bool (*valid)(std::string_view), const char* what, bool required = true) const {
    auto value = text(key, required);
    if (!value) return value.take_error();
    if ((required || !value->empty()) && !valid(*value)) return wrong(*table_.get(key), key, what);
    return value;
  }

  Result<std::vector<std::string>> list(const char* key) const {
    std::vector<std::string> out;
    const toml::node* node = table_.get(key);
    if (!node) return out;
    const toml::array* array = node->as_array();
    if (!array) return wrong(*node, key, "must be an array of strings");
    for (const toml::node& element : *array) {
      if (!element.is_string()) return wrong(element, key, "must hold only strings");
      out.push_back(*element.value<std::string>());
    }
    return out;
  }

  Result<std::uint64_t> size(const char* key) const {
    const toml::node* node = table_.get(key);
    if (!node) return make_error(path_.string() + ": " + where_ + " has no " + key, kDamagedLockHint);
    auto value = node->value<std::int64_t>();
    if (!node->is_integer() || !value || *value < 0 || static_cast<std::uint64_t>(*value) > kMaxArchiveBytes) {
      return wrong(*node, key, "must be a byte count no larger than 16 GiB");
    }
    return static_cast<std::uint64_t>(*value);
  }

 private:
  Error wrong(const toml::node& node, const char* key, const std::string& what) const {
    return make_error(toml_position(path_, node.source().begin) + ": " + where_ + "." + key + " " + what, kDamagedLockHint);
  }

  const std::filesystem::path& path_;
  const toml::table& table_;
  std::string where_;
};

// A component's name also names its licenses/<name>/ folder: never "." or "..".
bool is_name(std::string_view text) { return all_of_chars(text, "._-") && text != "." && text != ".."; }
bool is_platform(std::string_view text) { return all_of_chars(text, "_-"); }
bool is_version_text(std::string_view text) { return all_of_chars(text, "._+-"); }
bool is_label(std::string_view text) { return parse_version(text).has_value(); }
bool is_folder_url(std::string_view text) {
  return has_scheme(text) && !text.empty() && text.back() == '/' && text.find_first_of(" \t\r\n\"'\\") == std::string_view::npos;
}
bool is_source_url(std::string_view text) {
  return has_scheme(text) && text.find_first_of(" \t\r\n\"'\\") == std::string_view::npos;
}
bool is_pypi(std::string_view text) { return parse_install_source(text) == InstallSource::pypi; }

Result<LockedArchive> read_archive(const std::filesystem::path& path, const toml::table& table, const std::string& where) {
  TableReader reader(path, table, where);
  CUDAENV_TRY_ASSIGN(auto name, reader.checked("name", is_name, "must be a component or library name"));
  CUDAENV_TRY_ASSIGN(auto platform, reader.checked("platform", is_platform, "must be a platform such as linux-x86_64"));
  CUDAENV_TRY_ASSIGN(auto version, reader.checked("version", is_version_text, "must be a version"));
  CUDAENV_TRY_ASSIGN(auto url,
                     reader.checked("url", is_archive_url, "must be an http(s) or file URL ending in an archive's file name"));
  CUDAENV_TRY_ASSIGN(auto sha256, reader.checked("sha256", is_sha256, "must be 64 lowercase hex digits"));
  CUDAENV_TRY_ASSIGN(auto size, reader.size("size"));
  CUDAENV_TRY_ASSIGN(auto release, reader.checked("release", is_version_text, "must be a version", false));
  CUDAENV_TRY_ASSIGN(auto source, reader.checked("source", is_source_url, "must be an http(s) or file URL", false));
  CUDAENV_TRY_ASSIGN(auto source_sha256, reader.checked("source_sha256", is_sha256, "must be 64 lowercase hex digits", false));
  CUDAENV_TRY_ASSIGN(auto distribution, reader.checked("distribution", is_name, "must be a wheel's project name", false));
  return LockedArchive{
      .platform = platform,
      .archive = {.name = name, .version = version, .url = url, .sha256 = sha256, .size = size, .distribution = distribution},
      .release = release,
      .source = source,
      .source_sha256 = source_sha256};
}

Result<std::vector<LockedArchive>> read_archives(const std::filesystem::path& path, const toml::table& root, const char* key) {
  std::vector<LockedArchive> out;
  const toml::node* node = root.get(key);
  if (!node) return out;
  const toml::array* array = node->as_array();
  if (!array || !array->is_array_of_tables()) {
    return make_error(toml_position(path, node->source().begin) + ": " + key + " must be written as [[" + key + "]] tables",
                      kDamagedLockHint);
  }
  for (size_t i = 0; i < array->size(); ++i) {
    CUDAENV_TRY_ASSIGN(auto archive,
                       read_archive(path, *array->get(i)->as_table(), std::string(key) + "[" + std::to_string(i) + "]"));
    out.push_back(std::move(archive));
  }
  return out;
}

const toml::table* table_at(const toml::table& root, const char* key) {
  const toml::node* node = root.get(key);
  return node ? node->as_table() : nullptr;
}

std::vector<std::string> sorted(std::vector<std::string> values) {
  std::sort(values.begin(), values.end());
  return values;
}

std::vector<LockedArchive> for_platform(const std::vector<LockedArchive>& archives, const std::string& platform) {
  std::vector<LockedArchive> out;
  for (const LockedArchive& archive : archives) {
    if (archive.platform == platform) out.push_back(archive);
  }
  return out;
}

}  // namespace

std::vector<LockedArchive> CudaLock::components_for(const std::string& platform) const {
  return for_platform(components, platform);
}

std::vector<LockedArchive> CudaLock::libraries_for(const std::string& platform) const {
  return for_platform(libraries, platform);
}

void normalise_lock(CudaLock& lock) {
  std::sort(lock.platforms.begin(), lock.platforms.end());
  lock.platforms.erase(std::unique(lock.platforms.begin(), lock.platforms.end()), lock.platforms.end());
  std::sort(lock.components.begin(), lock.components.end(), [](const LockedArchive& a, const LockedArchive& b) {
    return std::tie(a.platform, a.archive.name) < std::tie(b.platform, b.archive.name);
  });
  std::sort(lock.libraries.begin(), lock.libraries.end(), [](const LockedArchive& a, const LockedArchive& b) {
    return std::tie(a.archive.name, a.platform) < std::tie(b.archive.name, b.platform);
  });
}

std::string render_lock(CudaLock lock) {
  normalise_lock(lock);
  std::string out =
      "# cuda.lock: what cuda.toml resolved to, written by `cudaenv lock`. Commit it beside cuda.toml:\n"
      "# `cudaenv install --locked` installs exactly these archives, or fails naming what differs.\n";
  out += "format = " + std::to_string(kLockFormat) + "\n\n[request]\n";
  line(out, "version", lock.request.version);
  if (!lock.request.profile.empty()) line(out, "profile", lock.request.profile);
  out += "components = " + toml_list(lock.request.components) + "\n";
  out += "libraries = " + toml_list(lock.request.libraries) + "\n";
  // A redist lock writes no source: locks written before there were wheels read the same.
  if (lock.request.source == InstallSource::pypi) line(out, "source", std::string(source_name(lock.request.source)));
  out += "\n[toolkit]\n";
  line(out, "label", lock.label);
  line(out, "profile", lock.profile);
  out += "platforms = " + toml_list(lock.platforms) + "\n";
  line(out, "source", lock.source);
  line(out, "manifest_sha256", lock.manifest_sha256);
  if (!lock.metapackage.empty()) line(out, "metapackage", lock.metapackage);
  for (const LockedArchive& archive : lock.components) render_archive(out, "component", archive);
  for (const LockedArchive& archive : lock.libraries) render_archive(out, "library", archive);
  return out;
}

Result<CudaLock> parse_lock(const std::filesystem::path& path, std::string_view text) {
  CUDAENV_TRY_ASSIGN(auto parsed, TomlReader(path, text, kDamagedLockHint).parse());
  const toml::table& root = parsed;
  const toml::node* format = root.get("format");
  if (!format || format->value<std::int64_t>() != kLockFormat) {
    return make_error(path.string() + " is not a cuda.lock this cudaenv reads (format " + std::to_string(kLockFormat) + ")",
                      "run `cudaenv lock` to write it again with this cudaenv");
  }
  const toml::table* request = table_at(root, "request");
  const toml::table* toolkit = table_at(root, "toolkit");
  if (!request || !toolkit) return make_error(path.string() + " has no [request] or no [toolkit] table", kDamagedLockHint);
  CudaLock lock;
  TableReader asked(path, *request, "request");
  TableReader got(path, *toolkit, "toolkit");
  auto version = asked.text("version");
  auto profile = asked.text("profile", false);
  auto components = asked.list("components");
  auto libraries = asked.list("libraries");
  auto source_kind = asked.checked("source", is_pypi, "must be \"pypi\", or absent for the redist archives", false);
  bool pypi = source_kind && !source_kind->empty();  // is_pypi let nothing else through
  auto label = got.checked("label", is_label, "must be a CUDA release label such as 12.4.1");
  auto installed_profile = got.checked("profile", is_name, "must be a profile name");
  auto platforms = got.list("platforms");
  auto source = pypi ? got.checked("source", is_source_url, "must be an http(s) or file URL")
                     : got.checked("source", is_folder_url, "must be an http(s) or file URL ending in '/'");
  auto manifest_sha256 = got.checked("manifest_sha256", is_sha256, "must be 64 lowercase hex digits");
  auto metapackage =
      got.checked("metapackage", is_archive_url, "must be an http(s) or file URL ending in a wheel's file name", pypi);
  if (!version) return version.take_error();
  if (!profile) return profile.take_error();
  if (!components) return components.take_error();
  if (!libraries) return libraries.take_error();
  if (!source_kind) return source_kind.take_error();
  if (!label) return label.take_error();
  if (!installed_profile) return installed_profile.take_error();
  if (!platforms) return platforms.take_error();
  if (!source) return source.take_error();
  if (!manifest_sha256) return manifest_sha256.take_error();
  if (!metapackage) return metapackage.take_error();
  lock.request = LockRequest{.version = *version,
                             .profile = *profile,
                             .components = *components,
                             .libraries = *libraries,
                             .source = pypi ? InstallSource::pypi : InstallSource::redist};
  lock.metapackage = *metapackage;
  lock.label = *label;
  lock.profile = *installed_profile;
  lock.platforms = *platforms;
  lock.source = *source;
  lock.manifest_sha256 = *manifest_sha256;
  for (const std::string& platform : lock.platforms) {
    if (!is_platform(platform))
      return make_error(path.string() + ": toolkit.platforms holds '" + terminal_safe(platform) + "'", kDamagedLockHint);
  }
  CUDAENV_TRY_ASSIGN(auto component_entries, read_archives(path, root, "component"));
  CUDAENV_TRY_ASSIGN(auto library_entries, read_archives(path, root, "library"));
  lock.components = std::move(component_entries);
  lock.libraries = std::move(library_entries);
  std::map<std::pair<std::string, std::string>, int> seen;
  for (const auto* list : {&lock.components, &lock.libraries}) {
    for (const LockedArchive& archive : *list) {
      if (std::find(lock.platforms.begin(), lock.platforms.end(), archive.platform) == lock.platforms.end()) {
        return make_error(path.string() + ": " + archive.archive.name + " is locked for " + archive.platform +
                              ", which toolkit.platforms does not list",
                          kDamagedLockHint);
      }
      if (++seen[{archive.archive.name, archive.platform}] > 1) {
        return make_error(path.string() + ": " + archive.archive.name + " (" + archive.platform + ") is locked twice",
                          kDamagedLockHint);
      }
    }
  }
  normalise_lock(lock);
  return lock;
}

std::vector<std::string> request_differences(const LockRequest& locked, const LockRequest& wanted) {
  std::vector<std::string> out;
  auto differ = [&](const std::string& what, const std::string& in_lock, const std::string& in_toml) {
    if (in_lock != in_toml) out.push_back(what + ": cuda.lock has " + in_lock + ", cuda.toml has " + in_toml);
  };
  auto shown = [](const std::string& value) { return value.empty() ? std::string("none") : toml_string(value); };
  differ("version", shown(locked.version), shown(wanted.version));
  differ("profile", shown(locked.profile), shown(wanted.profile));
  differ("components", toml_list(sorted(locked.components)), toml_list(sorted(wanted.components)));
  differ("libraries", toml_list(sorted(locked.libraries)), toml_list(sorted(wanted.libraries)));
  differ("source", std::string(source_name(locked.source)), std::string(source_name(wanted.source)));
  return out;
}

std::vector<std::string> archive_differences(const std::vector<LockedArchive>& locked, const std::vector<LockedArchive>& now) {
  using Key = std::pair<std::string, std::string>;
  std::map<Key, const Archive*> in_lock, in_now;
  for (const LockedArchive& entry : locked) in_lock[{entry.archive.name, entry.platform}] = &entry.archive;
  for (const LockedArchive& entry : now) in_now[{entry.archive.name, entry.platform}] = &entry.archive;
  std::vector<std::string> out;
  for (const auto& [key, archive] : in_lock) {
    std::string name = key.first + " (" + key.second + ")";
    auto found = in_now.find(key);
    if (found == in_now.end()) {
      out.push_back(name + ": in cuda.lock, but no longer offered");
      continue;
    }
    const Archive& other = *found->second;
    if (archive->version != other.version) {
      out.push_back(name + ": " + archive->version + " in cuda.lock, " + other.version + " now");
    } else if (archive->sha256 != other.sha256) {
      out.push_back(name + ": sha256 " + archive->sha256 + " in cuda.lock, " + other.sha256 + " now");
    } else if (archive->url != other.url) {
      out.push_back(name + ": " + archive->url + " in cuda.lock, " + other.url + " now");
    } else if (archive->size != other.size) {
      out.push_back(name + ": " + std::to_string(archive->size) + " bytes in cuda.lock, " + std::to_string(other.size) + " now");
    }
  }
  for (const auto& [key, archive] : in_now) {
    if (!in_lock.count(key)) out.push_back(key.first + " (" + key.second + "): " + archive->version + " now, not in cuda.lock");
  }
  return out;
}

Result<std::string> lock_cache_key(CudaLock lock, const std::string& platform) {
  normalise_lock(lock);
  if (std::find(lock.platforms.begin(), lock.platforms.end(), platform) == lock.platforms.end()) {
    return make_error("cuda.lock has nothing for " + platform + " (it locks " + join(lock.platforms, ", ") + ")",
                      "run `cudaenv lock --platform " + platform + "` to add it");
  }
  std::string identity = "cudaenv-lock " + std::to_string(kLockFormat) + "\n" + lock.label + "\n" + platform + "\n";
  for (const LockedArchive& locked : lock.components_for(platform)) {
    const Archive& archive = locked.archive;
    identity += "component " + archive.name + " " + archive.version + " " + archive.sha256 + "\n";
  }
  for (const LockedArchive& locked : lock.libraries_for(platform)) {
    const Archive& archive = locked.archive;
    identity += "library " + archive.name + " " + archive.version + " " + archive.sha256 + "\n";
  }
  return "cuda-" + lock.label + "-" + platform + "-" + sha256_hex(identity).substr(0, 16);
}

}  // namespace cudaenv
