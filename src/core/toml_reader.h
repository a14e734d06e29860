#pragma once
// Reading a TOML file the one way, for cuda.toml, cuda.lock and the data files cudaenv ships
// (release and profile catalogs, the CUDA facts, the PyTorch matrix): the one hand-off to
// toml++ (safe against its non-ASCII crashes), values of the expected type, unknown keys in the
// order the file has them, and every error and warning at its file:line:column.

#include <toml++/toml.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace cudaenv {

// "file:line:column", the way every TOML error in cudaenv names its place.
inline std::string toml_position(const std::filesystem::path& path, const toml::source_position& pos) {
  return path.string() + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

// as_written: values as the file has them. ascii_copy: parsed from a copy whose bytes past
// ASCII are 'x' (same offsets; columns count bytes), for callers that edit the text by position.
enum class TomlText { as_written, ascii_copy };

class TomlReader {
 public:
  // `text` is the file's, and must outlive the reader; `fix` is the hint of its errors
  // ("reinstall cudaenv; this file ships with it"), added below a syntax error's own.
  TomlReader(std::filesystem::path path, std::string_view text, std::string fix)
      : path_(std::move(path)), text_(text), fix_(std::move(fix)) {}

  const std::filesystem::path& path() const { return path_; }

  // The document, or its syntax error at its position, said as what is wrong and what to
  // write instead.
  Result<toml::table> parse(TomlText text = TomlText::as_written) const;

  // "path:line:col: what", with `fix` or else the file's.
  Error error_at(const toml::source_position& position, const std::string& what, const std::string& fix = {}) const;
  std::string position(const toml::source_position& position) const;

  // The string at `node`; else an error there naming `what` ("[cuda] version") and its type.
  // With the `key` and an `example` value the fix shows how to write it (a number quoted as
  // the file has it); without them it is the file's fix.
  Result<std::string> expect_string(const toml::node& node, const std::string& what, std::string_view key = {},
                                    std::string_view example = {}) const;
  Result<std::vector<std::string>> expect_string_array(const toml::node& node, const std::string& what, std::string_view key = {},
                                                       std::string_view example = {}) const;

  // "path:line:col: unknown key 'cuda.x' ignored (did you mean y?)"
  std::string unknown_key_warning(const toml::key& key, std::string_view table, const std::vector<std::string>& known) const;

 private:
  std::filesystem::path path_;
  std::string_view text_;
  std::string fix_;
};

// toml++ keeps a table's keys sorted; errors and warnings follow the file instead.
std::vector<std::pair<const toml::key*, toml::node*>> in_file_order(toml::table& table);

const char* toml_type_name(toml::node_type type);

}  // namespace cudaenv
