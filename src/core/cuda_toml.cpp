#include "core/cuda_toml.h"

#include <toml++/toml.h>

#include <algorithm>

#include "core/install_source.h"
#include "core/target.h"
#include "core/toml_reader.h"
#include "core/version.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// Hand-written checks instead of std::regex: the shim parses cuda.toml on every call,
// and compiling one regex costs more than everything else it does.
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_alnum(char c) { return is_digit(c) || is_alpha(c); }

bool is_variable_name(std::string_view name) {
  if (name.empty() || is_digit(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return is_alnum(c) || c == '_'; });
}

class Parser {
 public:
  Parser(const fs::path& path, std::string_view text) : path_(path), text_(text), reader_(path, text, {}) {}

  Result<CudaToml> run() {
    CUDAENV_TRY_ASSIGN(auto parsed, reader_.parse());
    toml::table& root = parsed;
    out_.path = path_;
    out_.text = std::string(text_);
    for (auto [key, node] : in_file_order(root)) {
      std::string name(key->str());
      if (name == "cuda") CUDAENV_TRY(read_cuda(*key, *node));
      else if (name == "torch") CUDAENV_TRY(read_torch(*key, *node));
      else if (name == "env") CUDAENV_TRY(read_env(*key, *node));
      else if (name == "target") CUDAENV_TRY(read_target(*key, *node));
      else warn_unknown(*key, "", {"cuda", "torch", "env", "target"});
    }
    if (unknown_keys_ > kUnknownKeysShown) {
      out_.warnings.push_back(path_.string() + ": " + std::to_string(unknown_keys_ - kUnknownKeysShown) +
                              " more unknown keys ignored");
    }
    return std::move(out_);
  }

 private:
  Status read_cuda(const toml::key& key, toml::node& node) {
    auto* table = as_table(key, node);
    if (!table) return last_error_;
    for (auto [key_in_table, node_in_table] : in_file_order(*table)) {
      const toml::key& k = *key_in_table;
      toml::node& v = *node_in_table;
      std::string name(k.str());
      if (name == "version") {
        CUDAENV_TRY_ASSIGN(auto value, expect_string(k, v, "[cuda] version", "\"12.1\""));
        if (!is_valid_version_request(value)) {
          return make_error(toml_position(path_, v.source().begin) + ": [cuda] version \"" + value + "\" is not a version",
                            "write a version such as \"12.1\" or \"12.1.1\", \"system\", or a name given to "
                            "`cudaenv add --as`");
        }
        out_.version = value;
      } else if (name == "profile") {
        CUDAENV_TRY_ASSIGN(auto value, expect_string(k, v, "[cuda] profile", "\"minimal\""));
        if (value != "minimal" && value != "torch" && value != "full") {
          return make_error(toml_position(path_, v.source().begin) + ": [cuda] profile \"" + value + "\" is unknown",
                            "use one of \"minimal\", \"torch\", \"full\"");
        }
        out_.profile = value;
      } else if (name == "source") {
        CUDAENV_TRY_ASSIGN(auto value, expect_string(k, v, "[cuda] source", "\"pypi\""));
        if (!parse_install_source(value)) {
          return make_error(toml_position(path_, v.source().begin) + ": [cuda] source \"" + value + "\" is unknown",
                            "use \"redist\" (NVIDIA's archives or a mirror of them) or \"pypi\" (NVIDIA's wheels)");
        }
        out_.source = value;
      } else if (name == "components") {
        CUDAENV_TRY_ASSIGN(auto value, expect_string_array(k, v, "[cuda] components", "[\"libcurand\"]"));
        out_.components = value;
      } else if (name == "arch") {
        CUDAENV_TRY_ASSIGN(auto value, expect_string_array(k, v, "[cuda] arch", "[\"8.9\", \"9.0\"]"));
        for (const std::string& arch : value) {
          if (!parse_arch_entry(arch)) {
            return make_error(
                toml_position(path_, v.source().begin) + ": [cuda] arch entry \"" + arch + "\" is not a compute capability",
                "write capabilities as \"8.9\", \"9.0a\" or \"8.6+PTX\"");
          }
        }
        out_.arch = value;
      } else if (name == "libraries") {
        CUDAENV_TRY_ASSIGN(auto value, expect_string_array(k, v, "[cuda] libraries", "[\"cudnn\", \"nccl\"]"));
        for (const std::string& entry : value) {
          auto spec = parse_library_spec(entry, toml_position(path_, v.source().begin) + ": [cuda] libraries");
          if (!spec) return spec.take_error();
        }
        out_.libraries = value;
      } else if (name == "lock") {
        if (!v.is_boolean()) {
          return make_error(
              toml_position(path_, v.source().begin) + ": [cuda] lock must be true or false, not " + toml_type_name(v.type()),
              "write lock = true to have `cudaenv install` keep cuda.lock up to date");
        }
        out_.lock = *v.value<bool>();
      } else if (name == "host_compiler") {
        CUDAENV_TRY_ASSIGN(auto value, expect_string(k, v, "[cuda] host_compiler", "\"gcc-12\""));
        if (value.empty() || std::any_of(value.begin(), value.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
          return make_error(toml_position(path_, v.source().begin) + ": [cuda] host_compiler \"" + terminal_safe(value) +
                                "\" is not a compiler",
                            "name a compiler on PATH, such as \"gcc-12\", or give its path");
        }
        out_.host_compiler = value;
      } else {
        warn_unknown(k, "cuda", {"version", "profile", "source", "components", "arch", "libraries", "lock", "host_compiler"});
      }
    }
    return ok_status();
  }

  Status read_torch(const toml::key& key, toml::node& node) {
    auto* table = as_table(key, node);
    if (!table) return last_error_;
    for (auto [key_in_table, node_in_table] : in_file_order(*table)) {
      const toml::key& k = *key_in_table;
      toml::node& v = *node_in_table;
      if (k.str() == "version") {
        CUDAENV_TRY_ASSIGN(auto value, expect_string(k, v, "[torch] version", "\"2.1.2\""));
        out_.torch_version = value;
      } else if (k.str() == "backend") {
        CUDAENV_TRY_ASSIGN(auto value, expect_string(k, v, "[torch] backend", "\"cpu\""));
        if (value != "auto" && value != "cpu" && value != "none") {
          return make_error(
              toml_position(path_, v.source().begin) + ": [torch] backend \"" + terminal_safe(value) + "\" is unknown",
              "use \"auto\" (UV_TORCH_BACKEND names the toolkit's cuXY, the default), \"cpu\" or \"none\" "
              "(UV_TORCH_BACKEND left alone)");
        }
        out_.torch_backend = value;
      } else {
        warn_unknown(k, "torch", {"version", "backend"});
      }
    }
    return ok_status();
  }

  Status read_target(const toml::key& key, toml::node& node) {
    auto* table = as_table(key, node);
    if (!table) return last_error_;
    for (auto [key_in_table, node_in_table] : in_file_order(*table)) {
      const toml::key& k = *key_in_table;
      toml::node& v = *node_in_table;
      if (k.str() != "name") {
        warn_unknown(k, "target", {"name"});
        continue;
      }
      CUDAENV_TRY_ASSIGN(auto value, expect_string(k, v, "[target] name", "\"a100\""));
      if (!is_valid_target_name(value)) {
        return make_error(
            toml_position(path_, v.source().begin) + ": [target] name \"" + terminal_safe(value) + "\" is not a target name",
            "use the name of a saved target (`cudaenv target list`): letters, digits, '.', '_' and '-'");
      }
      out_.target = value;
    }
    return ok_status();
  }

  Status read_env(const toml::key& key, toml::node& node) {
    auto* table = as_table(key, node);
    if (!table) return last_error_;
    for (auto [key_in_table, node_in_table] : in_file_order(*table)) {
      const toml::key& k = *key_in_table;
      toml::node& v = *node_in_table;
      std::string name(k.str());
      if (!is_variable_name(name)) {
        return make_error(toml_position(path_, k.source().begin) + ": [env] " + name + " is not a variable name",
                          "use letters, digits and underscores, not starting with a digit");
      }
      CUDAENV_TRY_ASSIGN(auto value, expect_string(k, v, "[env] " + name, "\"value\""));
      out_.env.emplace_back(name, value);
    }
    return ok_status();
  }

  // Leaves the error in last_error_ so callers can return it.
  toml::table* as_table(const toml::key& key, toml::node& node) {
    if (auto* table = node.as_table()) return table;
    last_error_ = make_error(toml_position(path_, key.source().begin) + ": " + std::string(key.str()) + " must be a table, not " +
                                 toml_type_name(node.type()),
                             "write it as a table: [" + std::string(key.str()) + "]");
    return nullptr;
  }

  Result<std::string> expect_string(const toml::key& key, toml::node& node, const std::string& what, const std::string& example) {
    return reader_.expect_string(node, what, key.str(), example);
  }

  Result<std::vector<std::string>> expect_string_array(const toml::key& key, toml::node& node, const std::string& what,
                                                       const std::string& example) {
    return reader_.expect_string_array(node, what, key.str(), example);
  }

  void warn_unknown(const toml::key& key, std::string_view table, const std::vector<std::string>& known) {
    // A file from a cloned repository may hold thousands; the shell would print every one.
    if (++unknown_keys_ <= kUnknownKeysShown) out_.warnings.push_back(reader_.unknown_key_warning(key, table, known));
  }

  static constexpr size_t kUnknownKeysShown = 10;
  size_t unknown_keys_ = 0;

  fs::path path_;
  std::string_view text_;
  TomlReader reader_;
  CudaToml out_;
  Error last_error_;
};

// The byte offset of a 1-based line/column position in `text`.
size_t offset_of(std::string_view text, const toml::source_position& pos) {
  size_t offset = 0;
  for (toml::source_index line = 1; line < pos.line; ++line) offset = text.find('\n', offset) + 1;
  return offset + pos.column - 1;
}

const char* const kLeftAsItWas = "the file was left as it was";

// JSON's string escapes are all valid in a TOML basic string.
std::string quoted_toml_string(std::string_view value) { return json_quote(value); }

}  // namespace

Result<std::string> set_cuda_toml_key(const fs::path& path, std::string_view text, std::string_view key, std::string_view value) {
  // Parsed as the ASCII copy: its columns are the byte offsets the edit needs.
  CUDAENV_TRY_ASSIGN(auto parsed, TomlReader(path, text, kLeftAsItWas).parse(TomlText::ascii_copy));
  std::string edited(text);
  std::string line = std::string(key) + " = " + quoted_toml_string(value) + "\n";
  toml::node* cuda = parsed.get("cuda");
  if (!cuda) {
    if (!edited.empty() && edited.back() != '\n') edited += '\n';
    if (!edited.empty()) edited += '\n';
    return edited + "[cuda]\n" + line;
  }
  toml::table* table = cuda->as_table();
  if (!table) return make_error(toml_position(path, cuda->source().begin) + ": cuda must be a table", "write it as [cuda]");
  if (toml::node* node = table->get(key)) {
    size_t begin = offset_of(text, node->source().begin);
    size_t end = offset_of(text, node->source().end);
    edited.replace(begin, end - begin, quoted_toml_string(value));
    return edited;
  }
  if (table->is_inline()) {
    return make_error(toml_position(path, cuda->source().begin) + ": [cuda] is an inline table without " + std::string(key),
                      "add " + line.substr(0, line.size() - 1) + " to it by hand");
  }
  // Insert right below the [cuda] header line.
  size_t header = offset_of(text, table->source().begin);
  size_t line_end = edited.find('\n', header);
  if (line_end == std::string::npos) edited += "\n" + line;
  else edited.insert(line_end + 1, line);
  return edited;
}

// `text` without its lines `first` to `last` (1-based, inclusive).
std::string without_lines(std::string_view text, toml::source_index first, toml::source_index last) {
  std::string out;
  toml::source_index line = 1;
  for (std::string_view rest = text; !rest.empty(); ++line) {
    size_t end = rest.find('\n');
    std::string_view current = rest.substr(0, end == std::string_view::npos ? rest.size() : end + 1);
    if (line < first || line > last) out += current;
    rest.remove_prefix(current.size());
  }
  return out;
}

Result<std::optional<std::string>> unset_cuda_toml_key(const fs::path& path, std::string_view text, std::string_view key) {
  // Parsed as the ASCII copy: its lines are the file's lines.
  CUDAENV_TRY_ASSIGN(auto parsed, TomlReader(path, text, kLeftAsItWas).parse(TomlText::ascii_copy));
  std::string edited(text);
  toml::table* table = parsed.get("cuda") ? parsed.get("cuda")->as_table() : nullptr;
  if (table) {
    for (auto&& [name, node] : *table) {
      if (name.str() != key) continue;
      if (table->is_inline()) {
        return make_error(toml_position(path, table->source().begin) + ": [cuda] is an inline table",
                          "remove " + std::string(key) + " from it by hand; the file was left as it was");
      }
      edited = without_lines(text, name.source().begin.line, node.source().end.line);
      // A [cuda] header with nothing under it goes too (it comes before the key's line).
      if (table->size() == 1) edited = without_lines(edited, table->source().begin.line, table->source().begin.line);
      break;
    }
  }
  auto rest = TomlReader(path, edited, {}).parse(TomlText::ascii_copy);
  if (rest && rest->empty()) return std::optional<std::string>{};
  return std::optional<std::string>(std::move(edited));
}

bool is_valid_version_request(std::string_view request) {
  if (request.empty() || !(is_alnum(request[0]) || request[0] == '_')) return false;
  if (request.find("..") != std::string_view::npos) return false;
  return std::all_of(request.begin(), request.end(),
                     [](char c) { return is_alnum(c) || c == '.' || c == '_' || c == '+' || c == '-'; });
}

Result<CudaToml> parse_cuda_toml(const fs::path& path, std::string_view text) { return Parser(path, text).run(); }

const std::vector<std::string>& known_libraries() {
  static const std::vector<std::string> names = {"cudnn", "nccl"};
  return names;
}

Result<LibrarySpec> parse_library_spec(std::string_view text, const std::string& where) {
  size_t at = text.find('@');
  LibrarySpec spec{std::string(text.substr(0, at)), at == std::string_view::npos ? "" : std::string(text.substr(at + 1))};
  const auto& known = known_libraries();
  if (std::find(known.begin(), known.end(), spec.name) == known.end()) {
    std::string hint = "cudaenv installs these libraries: " + join(known, ", ");
    if (auto guess = closest_word(spec.name, known)) hint = "did you mean " + *guess + "? " + hint;
    return make_error(where + " names '" + terminal_safe(text) + "', which is not a library cudaenv installs", hint,
                      ErrorKind::usage);
  }
  if (at != std::string_view::npos && !parse_version(spec.version)) {
    return make_error(where + " entry '" + terminal_safe(text) + "' has no version after '@'",
                      "write a version prefix, e.g. " + spec.name + "@9.10, or just " + spec.name + " for the newest",
                      ErrorKind::usage);
  }
  return spec;
}

}  // namespace cudaenv
