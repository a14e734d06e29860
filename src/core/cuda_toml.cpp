#include "core/cuda_toml.h"

#include <toml++/toml.h>

#include <algorithm>

#include "core/library_spec.h"
#include "core/toml_parse.h"
#include "core/toml_reader.h"
#include "core/version.h"
#include "lean/lean_toml.h"
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

// The key a line sets ("version" in `version = 12.1.1`), or "" when it sets none.
std::string key_of_line(std::string_view line) {
  size_t equals = line.find('=');
  if (equals == std::string_view::npos) return {};
  std::string_view key = trim(line.substr(0, equals));
  return std::all_of(key.begin(), key.end(), [](char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.'; })
             ? std::string(key)
             : std::string();
}

// toml++ says what its parser expected ("Error while parsing floating-point: expected
// decimal digit or exponent, saw '.'"); the user needs what is wrong in their file and
// what to write instead.
Error toml_syntax_error(const fs::path& path, std::string_view text, const toml::parse_error& error, const std::string& also) {
  std::string_view raw = error.description();
  auto says = [&](std::string_view part) { return raw.find(part) != std::string_view::npos; };
  auto lines = split(text, '\n');
  toml::source_index line_number = error.source().begin.line;
  std::string line = line_number >= 1 && line_number <= lines.size() ? std::string(trim(lines[line_number - 1])) : "";
  std::string key = key_of_line(line);
  std::string value = key.empty() ? "" : std::string(trim(line.substr(line.find('=') + 1)));
  std::string what;
  std::string fix;
  if (says("cannot redefine existing table")) {
    what = "a table is defined twice";
    fix = "keep one [" + (line.size() > 2 && line[0] == '[' ? line.substr(1, line.find(']') - 1) : "table") +
          "] header and put all its keys under it";
  } else if (says("cannot redefine existing")) {
    what = (key.empty() ? "a key" : "'" + key + "'") + " is set twice in the same table";
    fix = "keep one of the two lines";
  } else if (says("table header")) {
    what = "a table header is not closed";
    fix = "write it as [cuda], [torch] or [env]";
  } else if (says("unknown escape sequence")) {
    what = "a string holds a backslash escape TOML does not have";
    fix = "double the backslash (\\\\), or use single quotes for a literal string";
  } else if (says("unescaped control characters") || (says("parsing string") && says("end-of-file"))) {
    what = "a string is not closed on its line";
    fix = "end it with the quote it started with, e.g. " + (key.empty() ? "version" : key) + " = \"12.1\"";
  } else if (says("parsing array")) {
    what = "an array is not closed";
    fix = "close it on the same or a later line, e.g. arch = [\"8.9\", \"9.0\"]";
  } else if (says("expected '='")) {
    what = "a key is not followed by =";
    fix = "write each setting as key = value, e.g. version = \"12.1\"";
  } else if (says("expected value") || (says("key-value pair") && says("end-of-file"))) {
    what = (key.empty() ? "a key" : "'" + key + "'") + " has no value";
    fix = "give it one, e.g. " + (key.empty() ? "version" : key) + " = \"12.1\"";
  } else if (says("expected a comment or whitespace")) {
    what = "there is more on the line after the value";
    fix = "one value per line; a comment starts with #";
  } else if (!key.empty() && !value.empty() && value[0] != '"' && value[0] != '\'' && value[0] != '[') {
    what = key + " = " + value + " is not a TOML value";
    fix = "quote it: " + key + " = \"" + value + "\"";
  } else {
    what = std::string(raw);
    fix = "fix the TOML syntax at that position";
  }
  return make_error(toml_position(path, error.source().begin) + ": " + what, fix + also);
}

Result<toml::table> parsed_or_error(toml::parse_result parsed, const fs::path& path, std::string_view text,
                                    const std::string& also) {
  if (parsed) return std::move(parsed.table());
  return toml_syntax_error(path, text, parsed.error(), also);
}

// Where `text` holds a byte past ASCII outside a string or a comment, the only places TOML
// allows one, if it does.
std::optional<size_t> stray_non_ascii(std::string_view text) {
  enum class In { code, comment, basic, literal, multiline_basic, multiline_literal } in = In::code;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    std::string_view rest = text.substr(i);
    switch (in) {
      case In::code:
        if (static_cast<unsigned char>(c) >= 0x80) return i;
        if (c == '#') in = In::comment;
        else if (starts_with(rest, "\"\"\"")) in = In::multiline_basic, i += 2;
        else if (starts_with(rest, "'''")) in = In::multiline_literal, i += 2;
        else if (c == '"') in = In::basic;
        else if (c == '\'') in = In::literal;
        break;
      case In::comment:
        if (c == '\n') in = In::code;
        break;
      case In::basic:
        if (c == '\\') ++i;
        else if (c == '"' || c == '\n') in = In::code;
        break;
      case In::literal:
        if (c == '\'' || c == '\n') in = In::code;
        break;
      case In::multiline_basic:
        if (c == '\\') ++i;
        else if (starts_with(rest, "\"\"\"")) in = In::code, i += 2;
        break;
      case In::multiline_literal:
        if (starts_with(rest, "'''")) in = In::code, i += 2;
        break;
    }
  }
  return std::nullopt;
}

toml::source_position position_of(std::string_view text, size_t offset) {
  std::string_view before = text.substr(0, offset);
  size_t line_start = before.rfind('\n') == std::string_view::npos ? 0 : before.rfind('\n') + 1;
  size_t column = 1 + std::count_if(text.begin() + line_start, text.begin() + offset,
                                    [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; });
  return {static_cast<toml::source_index>(1 + std::count(before.begin(), before.end(), '\n')),
          static_cast<toml::source_index>(column)};
}

}  // namespace

// toml++ 3.3.0 (Debian 12) must only ever see ASCII where a file is not valid TOML: its
// is_non_ascii_horizontal_whitespace reaches __builtin_unreachable for most code points past
// U+00A0 (found by tests/fuzz/fuzz_toml under UBSan), and its error paths ask it about characters
// even inside what looks like a string (`version = 1x"\u00e9"`). So it first parses an ASCII
// copy, each byte past ASCII as 'x' (same byte offsets; its columns then count bytes, which
// `ascii` callers rely on). Only a copy that is valid, from a file whose other bytes all stand in
// strings or comments, lets the text as written be parsed for its values.
Result<toml::table> parse_toml(const fs::path& path, std::string_view text, const std::string& also, bool ascii) {
  if (auto stray = stray_non_ascii(text)) {
    return make_error(
        toml_position(path, position_of(text, *stray)) + ": a character beyond ASCII outside a quoted string or a comment",
        "TOML allows those only in quoted strings and comments" + also);
  }
  bool plain = std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (plain) return parsed_or_error(toml::parse(text, path.string()), path, text, also);
  std::string copy(text);
  std::replace_if(
      copy.begin(), copy.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }, 'x');
  auto checked = parsed_or_error(toml::parse(copy, path.string()), path, text, also);
  if (!checked || ascii) return checked;
  return parsed_or_error(toml::parse(text, path.string()), path, text, also);
}

namespace {

class Parser {
 public:
  Parser(const fs::path& path, std::string_view text) : path_(path), text_(text), reader_(path, text, {}) {}

  Result<CudaToml> run() {
    CUDAENV_TRY_ASSIGN(auto parsed, parse_toml(path_, text_, "", false));
    toml::table& root = parsed;
    out_.path = path_;
    out_.text = std::string(text_);
    for (auto [key, node] : in_file_order(root)) {
      std::string name(key->str());
      if (name == "cuda") CUDAENV_TRY(read_cuda(*key, *node));
      else if (name == "torch") CUDAENV_TRY(read_torch(*key, *node));
      else if (name == "env") CUDAENV_TRY(read_env(*key, *node));
      else warn_unknown(*key, "", {"cuda", "torch", "env"});
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
        if (value != "redist" && value != "pypi") {
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
      } else {
        warn_unknown(k, "cuda", {"version", "profile", "source", "components", "arch", "libraries", "lock"});
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
      } else {
        warn_unknown(k, "torch", {"version"});
      }
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

// JSON's string escapes are all valid in a TOML basic string.
std::string quoted_toml_string(std::string_view value) { return json_quote(value); }

}  // namespace

std::string new_cuda_toml(std::string_view version) { return "[cuda]\nversion = " + quoted_toml_string(version) + "\n"; }

Result<std::string> set_cuda_toml_version(const fs::path& path, std::string_view text, std::string_view version) {
  // Parsed as the ASCII copy: its columns are the byte offsets the edit needs.
  CUDAENV_TRY_ASSIGN(auto parsed, parse_toml(path, text, "\nthe file was left as it was", true));
  std::string edited(text);
  std::string value = quoted_toml_string(version);
  toml::node* cuda = parsed.get("cuda");
  if (!cuda) {
    if (!edited.empty() && edited.back() != '\n') edited += '\n';
    if (!edited.empty()) edited += '\n';
    return edited + new_cuda_toml(version);
  }
  toml::table* table = cuda->as_table();
  if (!table) return make_error(toml_position(path, cuda->source().begin) + ": cuda must be a table", "write it as [cuda]");
  if (toml::node* node = table->get("version")) {
    size_t begin = offset_of(text, node->source().begin);
    size_t end = offset_of(text, node->source().end);
    edited.replace(begin, end - begin, value);
    return edited;
  }
  if (table->is_inline()) {
    return make_error(toml_position(path, cuda->source().begin) + ": [cuda] is an inline table without a version",
                      "add version = \"" + std::string(version) + "\" to it by hand");
  }
  // Insert right below the [cuda] header line.
  size_t header = offset_of(text, table->source().begin);
  size_t line_end = edited.find('\n', header);
  std::string line = "version = " + value + "\n";
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

Result<std::optional<std::string>> unset_cuda_toml_version(const fs::path& path, std::string_view text) {
  // Parsed as the ASCII copy: its lines are the file's lines.
  CUDAENV_TRY_ASSIGN(auto parsed, parse_toml(path, text, "\nthe file was left as it was", true));
  std::string edited(text);
  toml::table* table = parsed.get("cuda") ? parsed.get("cuda")->as_table() : nullptr;
  if (table) {
    for (auto&& [key, node] : *table) {
      if (key.str() != "version") continue;
      if (table->is_inline()) {
        return make_error(toml_position(path, table->source().begin) + ": [cuda] is an inline table",
                          "remove version from it by hand; the file was left as it was");
      }
      edited = without_lines(text, key.source().begin.line, node.source().end.line);
      // A [cuda] header with nothing under it goes too (it comes before the version line).
      if (table->size() == 1) edited = without_lines(edited, table->source().begin.line, table->source().begin.line);
      break;
    }
  }
  auto rest = parse_toml(path, edited, "", true);
  if (rest && rest->empty()) return std::optional<std::string>{};
  return std::optional<std::string>(std::move(edited));
}

bool is_valid_version_request(std::string_view request) { return lean_is_version_request(request.data(), request.size()); }

Result<CudaToml> parse_cuda_toml(const fs::path& path, std::string_view text) { return Parser(path, text).run(); }

}  // namespace cudaenv
