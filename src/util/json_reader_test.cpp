#include <catch2/catch.hpp>

#include "util/json_reader.h"

using namespace cudaenv;

namespace {

JsonValue parsed(const char* text) {
  auto value = JsonValue::parse(text, "/x/doc.json", "rebuild it");
  REQUIRE(value);
  return *value;
}

}  // namespace

TEST_CASE("json reader: errors name the file, the JSON path and the type found") {
  JsonValue root = parsed(R"({"releases": [{"label": 12}], "odd key": {"n": -1}})");
  auto releases = root.at("releases");
  REQUIRE(releases);
  auto entries = releases->elements();
  REQUIRE(entries);
  REQUIRE(entries->size() == 1);
  auto label = (*entries)[0].string_at("label");
  REQUIRE_FALSE(label);
  CHECK(label.error().message == "/x/doc.json: releases[0].label must be a string (it is number)");
  CHECK(label.error().hint == "rebuild it");

  auto missing = (*entries)[0].at("manifest");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message == "/x/doc.json: releases[0] has no \"manifest\"");

  auto negative = root.at("odd key").value().at("n").value().unsigned_integer();
  REQUIRE_FALSE(negative);
  CHECK(negative.error().message == "/x/doc.json: [\"odd key\"].n must not be negative");

  auto not_array = root.at("odd key").value().elements();
  REQUIRE_FALSE(not_array);
  CHECK(not_array.error().message == "/x/doc.json: [\"odd key\"] must be an array (it is object)");
}

TEST_CASE("json reader: absent and null members are optional, other types are not") {
  JsonValue root = parsed(R"({"date": null, "flag": "yes", "name": "x"})");
  CHECK_FALSE(root.optional_string("date").value());
  CHECK_FALSE(root.optional_string("nothing").value());
  CHECK(root.optional_string("name").value() == std::optional<std::string>("x"));
  auto flag = root.optional_boolean("flag");
  REQUIRE_FALSE(flag);
  CHECK(flag.error().message == "/x/doc.json: flag must be true or false (it is string)");
  auto top = parsed("[1]").at("x");
  REQUIRE_FALSE(top);
  CHECK(top.error().message == "/x/doc.json: the top level must be an object (it is array)");
}

TEST_CASE("json reader: string arrays, absent or null as none, a wrong element named") {
  JsonValue root = parsed(R"({"archs": ["8.0", "9.0"], "none": null, "mixed": ["7.5", 8]})");
  CHECK(root.strings_at("archs").value() == std::vector<std::string>{"8.0", "9.0"});
  CHECK(root.strings_at("none").value().empty());
  CHECK(root.strings_at("absent").value().empty());
  auto mixed = root.strings_at("mixed");
  REQUIRE_FALSE(mixed);
  CHECK(mixed.error().message == "/x/doc.json: mixed[1] must be a string (it is number)");
}

TEST_CASE("json reader: text that is not JSON says where it breaks") {
  auto broken = JsonValue::parse("{\"a\": [1, 2", "https://m.test/redistrib_1.json", "check the mirror");
  REQUIRE_FALSE(broken);
  CHECK(broken.error().message.rfind("https://m.test/redistrib_1.json is not valid JSON (at byte ", 0) == 0);
  CHECK(broken.error().hint == "check the mirror");
  CHECK_FALSE(JsonValue::parse("", "empty.json"));
  CHECK_FALSE(JsonValue::parse("\"\xff\"", "bad-utf8.json"));
}

TEST_CASE("json reader: integers are range-checked") {
  JsonValue root = parsed(R"({"big": 18446744073709551615, "neg": -5, "real": 1.5})");
  CHECK(root.at("big").value().unsigned_integer().value() == 18446744073709551615ull);
  CHECK_FALSE(root.at("big").value().integer());
  CHECK(root.at("neg").value().integer().value() == -5);
  CHECK_FALSE(root.at("real").value().unsigned_integer());
}
