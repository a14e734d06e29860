#pragma once
// Reading JSON that comes from outside (manifests, mirror indexes, receipts, probe answers).
// Nothing throws: every getter returns a Result whose error names the source and the JSON
// path, e.g. "/m/cudaenv-mirror.json: releases[0].label must be a string", and carries the
// document's hint (how to fix or replace it).

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace cudaenv {

class JsonValue {
 public:
  // `source` (a path or URL) and `hint` go into every error about this document.
  static Result<JsonValue> parse(std::string_view text, std::string source, std::string hint = {});

  // "releases[0].label"; empty for the document itself.
  const std::string& where() const { return where_; }
  bool is_null() const;
  bool is_object() const;
  bool is_array() const;
  bool is_string() const;

  // A member that must be there (this must be an object).
  Result<JsonValue> at(std::string_view key) const;
  // A member that may be absent or null (nullopt); this must be an object.
  Result<std::optional<JsonValue>> find(std::string_view key) const;
  Result<std::vector<JsonValue>> elements() const;                         // of an array
  Result<std::vector<std::pair<std::string, JsonValue>>> members() const;  // of an object

  Result<std::string> string() const;
  Result<std::uint64_t> unsigned_integer() const;
  Result<std::int64_t> integer() const;
  Result<bool> boolean() const;

  // Shorthands for a member's value: required, or absent/null -> nullopt.
  Result<std::string> string_at(std::string_view key) const;
  Result<std::optional<std::string>> optional_string(std::string_view key) const;
  Result<std::optional<bool>> optional_boolean(std::string_view key) const;
  // An array of strings; absent or null: none.
  Result<std::vector<std::string>> strings_at(std::string_view key) const;

  // "SOURCE: WHERE WHAT", with the document's hint.
  Error error(std::string_view what) const;

 private:
  struct Document;
  JsonValue(std::shared_ptr<const Document> document, const nlohmann::json* node, std::string where);
  JsonValue child(const nlohmann::json& node, std::string where) const;
  Error type_error(const char* expected) const;

  std::shared_ptr<const Document> document_;
  const nlohmann::json* node_;
  std::string where_;
};

// The other direction, for files and --json output: indented text, with bytes that are not
// UTF-8 (a path, a driver's string) shown as U+FFFD where nlohmann::json would throw.
template <class Json>
std::string json_text(const Json& json) {
  return json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace cudaenv
