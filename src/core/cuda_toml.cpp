#include "core/cuda_toml.h"

#include <toml++/toml.h>

#include <algorithm>
#include <tuple>

#include "core/toml_position.h"
#include "util/edit_distance.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// Hand-written checks instead of std::regex: the shim parses cuda.toml on every call,
// and compiling one regex costs more than everything else it does.
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_alnum(char c) { return is_digit(c) || is_alpha(c); }

size_t skip_digits(std::string_view text, size_t pos) {
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  return pos;
}

// "8.9", "9.0a", "8.6+PTX"
bool is_compute_capability(std::string_view text) {
  size_t pos = skip_digits(text, 0);
  if (pos == 0 || pos >= text.size() || text[pos] != '.') return false;
  size_t minor_end = skip_digits(text, pos + 1);
  if (minor_end == pos + 1) return false;
  pos = minor_end;
  if (pos < text.size() && text[pos] >= 'a' && text[pos] <= 'z') ++pos;
  std::string_view rest = text.substr(pos);
  return rest.empty() || rest == "+PTX";
}

bool is_variable_name(std::string_view name) {
  if (name.empty() || is_digit(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return is_alnum(c) || c == '_'; });
}

// The source text of a node, to quote what the user wrote back to them.
std::string source_text(std::string_view text, const toml::source_region& region) {
  auto lines = split(text, '\n');
  if (region.begin.line == 0 || region.begin.line != region.end.line || region.begin.line > lines.size()) return {};
  const std::string& line = lines[region.begin.line - 1];
  size_t begin = region.begin.column - 1;
  size_t end = std::min<size_t>(region.end.column - 1, line.size());
  return begin < end ? line.substr(begin, end - begin) : std::string{};
}

const char* type_name(toml::node_type type) {
  switch (type) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "a date or time";
  }
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
Error toml_syntax_error(const fs::path& path, std::string_view text, const toml::parse_error& error,
                        const std::string& also) {
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

// toml++ keeps a table's keys sorted; errors and warnings follow the file instead.
std::vector<std::pair<const toml::key*, toml::node*>> in_file_order(toml::table& table) {
  std::vector<std::pair<const toml::key*, toml::node*>> entries;
  for (auto&& [key, node] : table) entries.emplace_back(&key, &node);
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const toml::source_position& x = a.first->source().begin;
    const toml::source_position& y = b.first->source().begin;
    return std::tie(x.line, x.column) < std::tie(y.line, y.column);
  });
  return entries;
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

// toml++ 3.3.0 (Debian 12) must only ever see ASCII where a file is not valid TOML: its
// is_non_ascii_horizontal_whitespace reaches __builtin_unreachable for most code points past
// U+00A0 (found by tests/fuzz/fuzz_toml under UBSan), and its error paths ask it about characters
// even inside what looks like a string (`version = 1x"\u00e9"`). So it first parses an ASCII
// copy, each byte past ASCII as 'x' (same byte offsets; its columns then count bytes, which
// `ascii` callers rely on). Only a copy that is valid, from a file whose other bytes all stand in
// strings or comments, lets the text as written be parsed for its values.
Result<toml::table> parse_toml(const fs::path& path, std::string_view text, const std::string& also, bool ascii) {
  if (auto stray = stray_non_ascii(text)) {
    return make_error(toml_position(path, position_of(text, *stray)) +
                          ": a character beyond ASCII outside a quoted string or a comment",
                      "TOML allows those only in quoted strings and comments" + also);
  }
  bool plain = std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (plain) return parsed_or_error(toml::parse(text, path.string()), path, text, also);
  std::string copy(text);
  std::replace_if(copy.begin(), copy.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }, 'x');
  auto checked = parsed_or_error(toml::parse(copy, path.string()), path, text, also);
  if (!checked || ascii) return checked;
  return parsed_or_error(toml::parse(text, path.string()), path, text, also);
}

class Parser {
 public:
  Parser(const fs::path& path, std::string_view text) : path_(path), text_(text) {}

  Result<CudaToml> run() {
    auto parsed = parse_toml(path_, text_, "", false);
    if (!parsed) return parsed.take_error();
    toml::table& root = *parsed;
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
        auto value = expect_string(k, v, "[cuda] version", "\"12.1\"");
        if (!value) return value.take_error();
        if (!is_valid_version_request(*value)) {
          return make_error(toml_position(path_, v.source().begin) + ": [cuda] version \"" + *value +
                                "\" is not a version",
                            "write a version such as \"12.1\" or \"12.1.1\", \"system\", or a name given to "
                            "`cudaenv add --as`");
        }
        out_.version = *value;
      } else if (name == "profile") {
        auto value = expect_string(k, v, "[cuda] profile", "\"minimal\"");
        if (!value) return value.take_error();
        if (*value != "minimal" && *value != "torch" && *value != "full") {
          return make_error(toml_position(path_, v.source().begin) + ": [cuda] profile \"" + *value + "\" is unknown",
                            "use one of \"minimal\", \"torch\", \"full\"");
        }
        out_.profile = *value;
      } else if (name == "source") {
        auto value = expect_string(k, v, "[cuda] source", "\"pypi\"");
        if (!value) return value.take_error();
        if (*value != "redist" && *value != "pypi") {
          return make_error(toml_position(path_, v.source().begin) + ": [cuda] source \"" + *value + "\" is unknown",
                            "use \"redist\" (NVIDIA's archives or a mirror of them) or \"pypi\" (NVIDIA's wheels)");
        }
        out_.source = *value;
      } else if (name == "components") {
        auto value = expect_string_array(k, v, "[cuda] components", "[\"libcurand\"]");
        if (!value) return value.take_error();
        out_.components = *value;
      } else if (name == "arch") {
        auto value = expect_string_array(k, v, "[cuda] arch", "[\"8.9\", \"9.0\"]");
        if (!value) return value.take_error();
        for (const std::string& arch : *value) {
          if (!is_compute_capability(arch)) {
            return make_error(toml_position(path_, v.source().begin) + ": [cuda] arch entry \"" + arch +
                                  "\" is not a compute capability",
                              "write capabilities as \"8.9\", \"9.0a\" or \"8.6+PTX\"");
          }
        }
        out_.arch = *value;
      } else {
        warn_unknown(k, "cuda", {"version", "profile", "source", "components", "arch"});
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
        auto value = expect_string(k, v, "[torch] version", "\"2.1.2\"");
        if (!value) return value.take_error();
        out_.torch_version = *value;
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
      auto value = expect_string(k, v, "[env] " + name, "\"value\"");
      if (!value) return value.take_error();
      out_.env.emplace_back(name, *value);
    }
    return ok_status();
  }

  // Leaves the error in last_error_ so callers can return it.
  toml::table* as_table(const toml::key& key, toml::node& node) {
    if (auto* table = node.as_table()) return table;
    last_error_ = make_error(toml_position(path_, key.source().begin) + ": " + std::string(key.str()) + " must be a table, not " +
                                 type_name(node.type()),
                             "write it as a table: [" + std::string(key.str()) + "]");
    return nullptr;
  }

  Result<std::string> expect_string(const toml::key& key, toml::node& node, const std::string& what,
                                    const std::string& example) {
    if (auto value = node.value<std::string>(); value && node.is_string()) return *value;
    std::string written = source_text(text_, node.source());
    std::string fix = node.is_number() && !written.empty()
                          ? "write it as a string: " + std::string(key.str()) + " = \"" + written + "\""
                          : "write it as a string, e.g. " + std::string(key.str()) + " = " + example;
    return make_error(toml_position(path_, node.source().begin) + ": " + what + " must be a string, not " +
                          type_name(node.type()),
                      fix);
  }

  Result<std::vector<std::string>> expect_string_array(const toml::key& key, toml::node& node,
                                                       const std::string& what, const std::string& example) {
    auto* array = node.as_array();
    if (!array) {
      return make_error(toml_position(path_, node.source().begin) + ": " + what + " must be an array of strings, not " +
                            type_name(node.type()),
                        "write it as " + std::string(key.str()) + " = " + example);
    }
    std::vector<std::string> values;
    for (toml::node& element : *array) {
      auto value = expect_string(key, element, what + " entry", example);
      if (!value) return value.take_error();
      values.push_back(*value);
    }
    return values;
  }

  void warn_unknown(const toml::key& key, std::string_view table, const std::vector<std::string>& known) {
    std::string name = table.empty() ? std::string(key.str()) : std::string(table) + "." + std::string(key.str());
    std::string warning = toml_position(path_, key.source().begin) + ": unknown key '" + name + "' ignored";
    if (auto guess = closest_word(key.str(), known)) warning += " (did you mean " + *guess + "?)";
    // A file from a cloned repository may hold thousands; the shell would print every one.
    if (++unknown_keys_ <= kUnknownKeysShown) out_.warnings.push_back(warning);
  }

  static constexpr size_t kUnknownKeysShown = 10;
  size_t unknown_keys_ = 0;

  fs::path path_;
  std::string_view text_;
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

std::string new_cuda_toml(std::string_view version) {
  return "[cuda]\nversion = " + quoted_toml_string(version) + "\n";
}

Result<std::string> set_cuda_toml_version(const fs::path& path, std::string_view text, std::string_view version) {
  // Parsed as the ASCII copy: its columns are the byte offsets the edit needs.
  auto parsed = parse_toml(path, text, "\nthe file was left as it was", true);
  if (!parsed) return parsed.take_error();
  std::string edited(text);
  std::string value = quoted_toml_string(version);
  toml::node* cuda = parsed->get("cuda");
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
  auto parsed = parse_toml(path, text, "\nthe file was left as it was", true);
  if (!parsed) return parsed.take_error();
  std::string edited(text);
  toml::table* table = parsed->get("cuda") ? parsed->get("cuda")->as_table() : nullptr;
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

bool is_valid_version_request(std::string_view request) {
  if (request.empty() || !(is_alnum(request[0]) || request[0] == '_')) return false;
  if (request.find("..") != std::string_view::npos) return false;
  return std::all_of(request.begin(), request.end(),
                     [](char c) { return is_alnum(c) || c == '.' || c == '_' || c == '+' || c == '-'; });
}

Result<CudaToml> parse_cuda_toml(const fs::path& path, std::string_view text) {
  return Parser(path, text).run();
}

}  // namespace cudaenv
