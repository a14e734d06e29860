#include "extensions/catalog.h"

#include <toml++/toml.h>

#include <algorithm>
#include <set>

#include "core/toml_reader.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

const std::map<std::string_view, Publishing>& kinds() {
  static const std::map<std::string_view, Publishing> table{{"pytorch-index", Publishing::pytorch_index},
                                                            {"wheels", Publishing::wheels},
                                                            {"pypi", Publishing::pypi},
                                                            {"source", Publishing::source}};
  return table;
}

// The placeholders a wheel URL may hold; any other {...} is a mistake in the file.
const std::set<std::string_view>& placeholders() {
  static const std::set<std::string_view> names{"version", "cuda_major", "torch_minor", "cxx11abi", "python", "platform"};
  return names;
}

class CatalogParser {
 public:
  CatalogParser(const std::filesystem::path& path, std::string_view text)
      : reader_(path, text, "this file ships with cudaenv; restore it from the source tree or fix that line") {
    catalog_.path = path;
  }

  Result<ExtensionCatalog> run() {
    CUDAENV_TRY_ASSIGN(auto parsed, reader_.parse());
    for (auto [key, node] : in_file_order(parsed)) {
      Status status = ok_status();
      if (key->str() == "abi") status = read_abi(*key, *node);
      else if (key->str() == "package") status = each_table("package", *node, [this](toml::table& t) { return read_package(t); });
      else status = fail(key->source().begin, "unknown key '" + std::string(key->str()) + "'");
      if (!status) return status.take_error();
    }
    if (catalog_.cxx11_from.parts.empty()) return fail({1, 1}, "no [abi] table with cxx11_from");
    if (catalog_.packages.empty()) return fail({1, 1}, "no [[package]] tables");
    return std::move(catalog_);
  }

 private:
  Error fail(const toml::source_position& pos, const std::string& what) const { return reader_.error_at(pos, what); }

  template <class ReadTable>
  Status each_table(const std::string& name, toml::node& node, ReadTable read) {
    auto* array = node.as_array();
    if (!array) return fail(node.source().begin, name + " must be an array of tables: [[" + name + "]]");
    for (toml::node& element : *array) {
      auto* table = element.as_table();
      if (!table) return fail(element.source().begin, "[[" + name + "]] entries must be tables");
      CUDAENV_TRY(read(*table));
    }
    return ok_status();
  }

  Status check_keys(toml::table& table, const std::set<std::string_view>& known) {
    for (auto [key, node] : in_file_order(table)) {
      if (!known.count(key->str())) return fail(key->source().begin, "unknown key '" + std::string(key->str()) + "'");
    }
    return ok_status();
  }

  Result<std::string> string_at(toml::table& table, std::string_view key, bool required) {
    toml::node* node = table.get(key);
    if (!node) {
      if (required) return fail(table.source().begin, "missing key '" + std::string(key) + "'");
      return std::string();
    }
    CUDAENV_TRY_ASSIGN(auto text, reader_.expect_string(*node, std::string(key)));
    if (required && text.empty()) return fail(node->source().begin, std::string(key) + " is empty");
    return text;
  }

  Result<Version> version_at(toml::table& table, std::string_view key) {
    CUDAENV_TRY_ASSIGN(auto text, string_at(table, key, true));
    auto version = parse_version(text);
    if (!version || version->parts.size() != 3) {
      return fail(table.get(key)->source().begin, "'" + text + "' is not a version of 3 numbers");
    }
    return *version;
  }

  Status read_abi(const toml::key& key, toml::node& node) {
    auto* table = node.as_table();
    if (!table) return fail(key.source().begin, "abi must be a table: [abi]");
    CUDAENV_TRY(check_keys(*table, {"cxx11_from"}));
    CUDAENV_TRY_ASSIGN(auto from, version_at(*table, "cxx11_from"));
    catalog_.cxx11_from = from;
    return ok_status();
  }

  // Every {name} in `pattern` is one the advice fills in, and the URL is http(s).
  Status check_wheel_pattern(const toml::node& node, const std::string& pattern) {
    if (!starts_with(pattern, "https://") && !starts_with(pattern, "http://")) {
      return fail(node.source().begin, "wheel '" + pattern + "' is not an http(s) URL");
    }
    for (size_t open = pattern.find('{'); open != std::string::npos; open = pattern.find('{', open + 1)) {
      size_t close = pattern.find('}', open);
      std::string name = close == std::string::npos ? "" : pattern.substr(open + 1, close - open - 1);
      if (!placeholders().count(name)) {
        return fail(node.source().begin, "wheel holds '{" + name +
                                             "}', which is none of {version} {cuda_major} "
                                             "{torch_minor} {cxx11abi} {python} {platform}");
      }
    }
    return ok_status();
  }

  Result<double> memory_at(toml::table& table) {
    toml::node* node = table.get("job_memory_gb");
    if (!node) return fail(table.source().begin, "missing key 'job_memory_gb'");
    auto value = node->value<double>();
    if (!value || !(node->is_integer() || node->is_floating_point()) || !(*value >= 0.25 && *value <= 1024)) {
      return fail(node->source().begin, "job_memory_gb must be a number of gigabytes between 0.25 and 1024");
    }
    return *value;
  }

  Status read_build_env(toml::node& node, ExtensionEntry& entry) {
    auto* table = node.as_table();
    if (!table) return fail(node.source().begin, "build_env must be a table: build_env = { NAME = \"value\" }");
    for (auto [key, value] : in_file_order(*table)) {
      std::string name(key->str());
      bool plain = !name.empty() && name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == std::string::npos;
      if (!plain) return fail(key->source().begin, "'" + name + "' is not an environment variable name (A-Z, 0-9, _)");
      CUDAENV_TRY_ASSIGN(auto text, reader_.expect_string(*value, "build_env." + name));
      entry.build_env.emplace_back(name, text);
    }
    return ok_status();
  }

  Status read_release(toml::table& table, ExtensionEntry& entry) {
    CUDAENV_TRY(check_keys(table, {"version", "torch", "cuda_major"}));
    PinnedRelease release;
    CUDAENV_TRY_ASSIGN(auto version, string_at(table, "version", true));
    release.version = version;
    CUDAENV_TRY_ASSIGN(auto torch, version_at(table, "torch"));
    release.torch = torch;
    toml::node* major = table.get("cuda_major");
    if (!major || !major->is_integer() || *major->value<int64_t>() < 1 || *major->value<int64_t>() > 99) {
      return fail(major ? major->source().begin : table.source().begin,
                  "[[package.release]] needs a cuda_major between 1 and 99");
    }
    release.cuda_major = static_cast<int>(*major->value<int64_t>());
    entry.releases.push_back(release);
    return ok_status();
  }

  Status read_package(toml::table& table) {
    CUDAENV_TRY(check_keys(table, {"name", "kind", "local_tag", "latest", "wheel", "source", "build_env", "build_options",
                                   "job_memory_gb", "release"}));
    ExtensionEntry entry;
    CUDAENV_TRY_ASSIGN(auto name, string_at(table, "name", true));
    entry.name = normalize_project_name(name);
    if (catalog_.find(entry.name)) return fail(table.source().begin, "package '" + name + "' is listed twice");
    CUDAENV_TRY_ASSIGN(auto kind, string_at(table, "kind", true));
    auto known = kinds().find(kind);
    if (known == kinds().end()) {
      return fail(table.get("kind")->source().begin, "kind '" + kind + "' is none of pytorch-index, wheels, pypi, source");
    }
    entry.kind = known->second;
    if (toml::node* tag = table.get("local_tag")) {
      if (!tag->is_boolean()) return fail(tag->source().begin, "local_tag must be true or false");
      entry.local_tag = *tag->value<bool>();
    }
    CUDAENV_TRY_ASSIGN(auto latest, string_at(table, "latest", entry.kind == Publishing::wheels));
    entry.latest = latest;
    CUDAENV_TRY_ASSIGN(auto wheel, string_at(table, "wheel", entry.kind == Publishing::wheels));
    if (!wheel.empty()) CUDAENV_TRY(check_wheel_pattern(*table.get("wheel"), wheel));
    entry.wheel = wheel;
    CUDAENV_TRY_ASSIGN(auto source, string_at(table, "source", true));
    entry.source = source;
    if (toml::node* env = table.get("build_env")) CUDAENV_TRY(read_build_env(*env, entry));
    if (toml::node* options = table.get("build_options")) {
      CUDAENV_TRY_ASSIGN(auto list, reader_.expect_string_array(*options, "build_options"));
      entry.build_options = list;
    }
    CUDAENV_TRY_ASSIGN(auto memory, memory_at(table));
    entry.job_memory_gb = memory;
    if (toml::node* releases = table.get("release")) {
      CUDAENV_TRY(each_table("package.release", *releases, [&](toml::table& t) { return read_release(t, entry); }));
    }
    catalog_.packages.push_back(std::move(entry));
    return ok_status();
  }

  TomlReader reader_;
  ExtensionCatalog catalog_;
};

}  // namespace

const ExtensionEntry* ExtensionCatalog::find(std::string_view name) const {
  std::string wanted = normalize_project_name(name);
  for (const ExtensionEntry& entry : packages) {
    if (entry.name == wanted) return &entry;
  }
  return nullptr;
}

std::vector<std::string> ExtensionCatalog::names() const {
  std::vector<std::string> out;
  for (const ExtensionEntry& entry : packages) out.push_back(entry.name);
  return out;
}

Result<ExtensionCatalog> parse_extension_catalog(const std::filesystem::path& path, std::string_view text) {
  return CatalogParser(path, text).run();
}

Result<ExtensionCatalog> load_extension_catalog(const DataFiles& data) {
  CUDAENV_TRY_ASSIGN(auto file, data.read(kExtensionCatalogFileName));
  return parse_extension_catalog(file.path, file.text);
}

}  // namespace cudaenv
