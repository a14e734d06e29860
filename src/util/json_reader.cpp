#include "util/json_reader.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "util/strings.h"

namespace cudaenv {

struct JsonValue::Document {
  nlohmann::json root;
  std::string source;
  std::string hint;
};

namespace {

bool is_plain_key(std::string_view key) {
  return !key.empty() &&
         std::all_of(key.begin(), key.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; });
}

std::string member_path(const std::string& where, std::string_view key) {
  if (!is_plain_key(key)) return where + "[" + json_quote(key) + "]";
  return where.empty() ? std::string(key) : where + "." + std::string(key);
}

}  // namespace

JsonValue::JsonValue(std::shared_ptr<const Document> document, const nlohmann::json* node, std::string where)
    : document_(std::move(document)), node_(node), where_(std::move(where)) {}

JsonValue JsonValue::child(const nlohmann::json& node, std::string where) const {
  return JsonValue(document_, &node, std::move(where));
}

Result<JsonValue> JsonValue::parse(std::string_view text, std::string source, std::string hint) {
  auto document = std::make_shared<Document>();
  document->source = std::move(source);
  document->hint = std::move(hint);
  // The parser's exception is the only way to learn where the text went wrong; it stays here.
  try {
    document->root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    std::string at =
        e.id == 101 ? " (at byte " + std::to_string(static_cast<const nlohmann::json::parse_error&>(e).byte) + ")" : "";
    return make_error(document->source + " is not valid JSON" + at, document->hint);
  }
  const nlohmann::json* root = &document->root;
  return JsonValue(std::move(document), root, "");
}

bool JsonValue::is_null() const { return node_->is_null(); }
bool JsonValue::is_object() const { return node_->is_object(); }
bool JsonValue::is_array() const { return node_->is_array(); }
bool JsonValue::is_string() const { return node_->is_string(); }

Error JsonValue::error(std::string_view what) const {
  std::string subject = where_.empty() ? "the top level" : where_;
  return make_error(document_->source + ": " + subject + " " + std::string(what), document_->hint);
}

Error JsonValue::type_error(const char* expected) const {
  return error(std::string("must be ") + expected + " (it is " + (node_->is_null() ? "null" : node_->type_name()) + ")");
}

Result<std::optional<JsonValue>> JsonValue::find(std::string_view key) const {
  if (!node_->is_object()) return type_error("an object");
  auto it = node_->find(key);
  if (it == node_->end() || it->is_null()) return std::optional<JsonValue>();
  return std::optional<JsonValue>(child(*it, member_path(where_, key)));
}

Result<JsonValue> JsonValue::at(std::string_view key) const {
  CUDAENV_TRY_ASSIGN(auto found, find(key));
  if (!found) return error("has no \"" + std::string(key) + "\"");
  return std::move(*found);
}

Result<std::vector<JsonValue>> JsonValue::elements() const {
  if (!node_->is_array()) return type_error("an array");
  std::vector<JsonValue> out;
  out.reserve(node_->size());
  for (size_t i = 0; i < node_->size(); ++i) out.push_back(child((*node_)[i], where_ + "[" + std::to_string(i) + "]"));
  return out;
}

Result<std::vector<std::pair<std::string, JsonValue>>> JsonValue::members() const {
  if (!node_->is_object()) return type_error("an object");
  std::vector<std::pair<std::string, JsonValue>> out;
  for (const auto& [key, value] : node_->items()) out.emplace_back(key, child(value, member_path(where_, key)));
  return out;
}

Result<std::string> JsonValue::string() const {
  if (!node_->is_string()) return type_error("a string");
  return node_->get<std::string>();
}

Result<std::uint64_t> JsonValue::unsigned_integer() const {
  if (node_->is_number_unsigned()) return node_->get<std::uint64_t>();
  if (node_->is_number_integer()) return error("must not be negative");
  return type_error("a whole number");
}

Result<std::int64_t> JsonValue::integer() const {
  if (node_->is_number_unsigned() && node_->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
    return error("is too large");
  }
  if (node_->is_number_integer()) return node_->get<std::int64_t>();
  return type_error("a whole number");
}

Result<bool> JsonValue::boolean() const {
  if (!node_->is_boolean()) return type_error("true or false");
  return node_->get<bool>();
}

Result<std::string> JsonValue::string_at(std::string_view key) const {
  CUDAENV_TRY_ASSIGN(auto member, at(key));
  return member.string();
}

Result<std::optional<std::string>> JsonValue::optional_string(std::string_view key) const {
  CUDAENV_TRY_ASSIGN(auto member, find(key));
  if (!member) return std::optional<std::string>();
  CUDAENV_TRY_ASSIGN(auto text, member->string());
  return std::optional<std::string>(std::move(text));
}

Result<std::vector<std::string>> JsonValue::strings_at(std::string_view key) const {
  std::vector<std::string> out;
  CUDAENV_TRY_ASSIGN(auto member, find(key));
  if (!member) return out;
  CUDAENV_TRY_ASSIGN(auto elements, member->elements());
  for (const JsonValue& element : elements) {
    CUDAENV_TRY_ASSIGN(auto text, element.string());
    out.push_back(std::move(text));
  }
  return out;
}

Result<std::optional<bool>> JsonValue::optional_boolean(std::string_view key) const {
  CUDAENV_TRY_ASSIGN(auto member, find(key));
  if (!member) return std::optional<bool>();
  CUDAENV_TRY_ASSIGN(auto value, member->boolean());
  return std::optional<bool>(value);
}

}  // namespace cudaenv
