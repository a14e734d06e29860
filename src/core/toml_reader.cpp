#include "core/toml_reader.h"

#include <algorithm>
#include <tuple>

#include "util/strings.h"

namespace cudaenv {

namespace {

namespace fs = std::filesystem;

// The source text of a node, to quote what the user wrote back to them.
std::string source_text(std::string_view text, const toml::source_region& region) {
  auto lines = split(text, '\n');
  if (region.begin.line == 0 || region.begin.line != region.end.line || region.begin.line > lines.size()) return {};
  const std::string& line = lines[region.begin.line - 1];
  size_t begin = region.begin.column - 1;
  size_t end = std::min<size_t>(region.end.column - 1, line.size());
  return begin < end ? line.substr(begin, end - begin) : std::string{};
}

bool is_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

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

// toml++ 3.3.0 (Debian 12) must only ever see ASCII where a file is not valid TOML: its
// is_non_ascii_horizontal_whitespace reaches __builtin_unreachable for most code points past
// U+00A0 (found by tests/fuzz/fuzz_toml under UBSan), and its error paths ask it about characters
// even inside what looks like a string (`version = 1x"\u00e9"`). So it first parses an ASCII
// copy, each byte past ASCII as 'x' (same byte offsets; its columns then count bytes, which
// `ascii` callers rely on). Only a copy that is valid, from a file whose other bytes all stand in
// strings or comments, lets the text as written be parsed for its values.
Result<toml::table> safe_parse(const fs::path& path, std::string_view text, const std::string& also, bool ascii) {
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

}  // namespace

const char* toml_type_name(toml::node_type type) {
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

Result<toml::table> TomlReader::parse(TomlText text) const {
  return safe_parse(path_, text_, fix_.empty() ? "" : "\n" + fix_, text == TomlText::ascii_copy);
}

std::string TomlReader::position(const toml::source_position& pos) const { return toml_position(path_, pos); }

Error TomlReader::error_at(const toml::source_position& pos, const std::string& what, const std::string& fix) const {
  return make_error(position(pos) + ": " + what, fix.empty() ? fix_ : fix);
}

Result<std::string> TomlReader::expect_string(const toml::node& node, const std::string& what, std::string_view key,
                                              std::string_view example) const {
  if (auto value = node.value<std::string>(); value && node.is_string()) return *value;
  std::string fix = fix_;
  if (!key.empty()) {
    std::string written = source_text(text_, node.source());
    fix = node.is_number() && !written.empty() ? "write it as a string: " + std::string(key) + " = \"" + written + "\""
                                               : "write it as a string, e.g. " + std::string(key) + " = " + std::string(example);
  }
  return error_at(node.source().begin, what + " must be a string, not " + toml_type_name(node.type()), fix);
}

Result<std::vector<std::string>> TomlReader::expect_string_array(const toml::node& node, const std::string& what,
                                                                 std::string_view key, std::string_view example) const {
  const toml::array* array = node.as_array();
  if (!array) {
    return error_at(node.source().begin, what + " must be an array of strings, not " + toml_type_name(node.type()),
                    key.empty() ? fix_ : "write it as " + std::string(key) + " = " + std::string(example));
  }
  std::vector<std::string> values;
  for (const toml::node& element : *array) {
    CUDAENV_TRY_ASSIGN(auto value, expect_string(element, what + " entry", key, example));
    values.push_back(std::move(value));
  }
  return values;
}

std::string TomlReader::unknown_key_warning(const toml::key& key, std::string_view table,
                                            const std::vector<std::string>& known) const {
  std::string name = table.empty() ? std::string(key.str()) : std::string(table) + "." + std::string(key.str());
  std::string warning = position(key.source().begin) + ": unknown key '" + name + "' ignored";
  if (auto guess = closest_word(key.str(), known)) warning += " (did you mean " + *guess + "?)";
  return warning;
}

}  // namespace cudaenv
