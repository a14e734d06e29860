#include "core/toml_reader.h"

#include <algorithm>
#include <tuple>

#include "util/edit_distance.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// The source text of a node, to quote what the user wrote back to them.
std::string source_text(std::string_view text, const toml::source_region& region) {
  auto lines = split(text, '\n');
  if (region.begin.line == 0 || region.begin.line != region.end.line || region.begin.line > lines.size()) return {};
  const std::string& line = lines[region.begin.line - 1];
  size_t begin = region.begin.column - 1;
  size_t end = std::min<size_t>(region.end.column - 1, line.size());
  return begin < end ? line.substr(begin, end - begin) : std::string{};
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

Result<toml::table> TomlReader::parse() const {
  toml::parse_result parsed = toml::parse(text_, path_.string());
  if (!parsed) return error_at(parsed.error().source().begin, std::string(parsed.error().description()));
  return std::move(parsed.table());
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
