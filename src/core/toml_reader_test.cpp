#include <catch2/catch.hpp>

#include "core/toml_reader.h"

using namespace cudaenv;

TEST_CASE("TomlReader: syntax errors, types and unknown keys at their file:line:column") {
  TomlReader broken("/d/data.toml", "a = [\n", "reinstall it");
  auto failed = broken.parse();
  REQUIRE_FALSE(failed);
  CHECK(failed.error().message == "/d/data.toml:1:7: an array is not closed");
  // The syntax error's own fix, then the file's.
  CHECK(failed.error().hint == "close it on the same or a later line, e.g. arch = [\"8.9\", \"9.0\"]\nreinstall it");

  std::string text = "zeta = 1\nlist = [\"a\", 2]\nname = 12.5\nalpha = \"x\"\n";
  TomlReader reader("/d/data.toml", text, "reinstall it");
  auto table = reader.parse();
  REQUIRE(table);
  auto list = reader.expect_string_array(*(*table)["list"].node(), "list");
  REQUIRE_FALSE(list);
  CHECK(list.error().message == "/d/data.toml:2:14: list entry must be a string, not an integer");
  CHECK(list.error().hint == "reinstall it");
  auto number = reader.expect_string(*(*table)["name"].node(), "[cuda] name", "name", "\"x\"");
  REQUIRE_FALSE(number);
  CHECK(number.error().message == "/d/data.toml:3:8: [cuda] name must be a string, not a number");
  CHECK(number.error().hint == "write it as a string: name = \"12.5\"");
  auto not_array = reader.expect_string_array(*(*table)["alpha"].node(), "alpha", "alpha", "[\"x\"]");
  CHECK(not_array.error().hint == "write it as alpha = [\"x\"]");
  CHECK(*reader.expect_string(*(*table)["alpha"].node(), "alpha") == "x");

  std::vector<std::string> keys;
  for (auto [key, node] : in_file_order(*table)) keys.emplace_back(key->str());
  CHECK(keys == std::vector<std::string>{"zeta", "list", "name", "alpha"});
  const toml::key& zeta = *in_file_order(*table).front().first;
  CHECK(reader.unknown_key_warning(zeta, "cuda", {"list", "zeta2"}) ==
        "/d/data.toml:1:1: unknown key 'cuda.zeta' ignored (did you mean zeta2?)");
}
