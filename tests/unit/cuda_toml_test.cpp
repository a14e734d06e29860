#include <catch2/catch.hpp>

#include "core/cuda_toml.h"

using namespace cudaenv;

static const fs::path kFile = "/p/cuda.toml";

TEST_CASE("cuda.toml: every documented table is read") {
  auto parsed = parse_cuda_toml(kFile, R"(
[cuda]
version = "12.1"
profile = "torch"
components = ["libcurand", "libcufft"]
arch = ["8.9", "9.0a", "8.6+PTX"]

[torch]
version = "2.1.2"

[env]
NCCL_DEBUG = "INFO"
)");
  REQUIRE(parsed.ok());
  CHECK(parsed->version == "12.1");
  CHECK(parsed->profile == "torch");
  CHECK(parsed->components == std::vector<std::string>{"libcurand", "libcufft"});
  CHECK(parsed->arch == std::vector<std::string>{"8.9", "9.0a", "8.6+PTX"});
  CHECK(parsed->torch_version == "2.1.2");
  REQUIRE(parsed->env.size() == 1);
  CHECK(parsed->env[0] == std::make_pair(std::string("NCCL_DEBUG"), std::string("INFO")));
  CHECK(parsed->warnings.empty());
}

TEST_CASE("cuda.toml: a float version is explained with file:line:column") {
  auto parsed = parse_cuda_toml(kFile, "[cuda]\nversion = 12.1\n");
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.error().message == "/p/cuda.toml:2:11: [cuda] version must be a string, not a number");
  CHECK(parsed.error().hint == "write it as a string: version = \"12.1\"");
}

TEST_CASE("cuda.toml: syntax errors name the position") {
  auto parsed = parse_cuda_toml(kFile, "[cuda]\nversion = \"12.1\nprofile = 1\n");
  REQUIRE_FALSE(parsed.ok());
  CHECK_THAT(parsed.error().message, Catch::StartsWith("/p/cuda.toml:2:"));
}

TEST_CASE("cuda.toml: missing pieces and wrong values are errors that say what was expected") {
  struct Case {
    const char* text;
    const char* message_start;
  };
  for (const Case& c : std::vector<Case>{
           {"", "/p/cuda.toml: no [cuda] table"},
           {"[cuda]\nprofile = \"full\"\n", "/p/cuda.toml:1:2: [cuda] has no version"},
           {"[cuda]\nversion = \"12.1\"\nprofile = \"tiny\"\n", "/p/cuda.toml:3:11: [cuda] profile \"tiny\" is unknown"},
           {"[cuda]\nversion = \"../../etc\"\n", "/p/cuda.toml:2:11: [cuda] version \"../../etc\" is not a version"},
           {"[cuda]\nversion = \"12.1\"\narch = [\"sm_89\"]\n", "/p/cuda.toml:3:8: [cuda] arch entry \"sm_89\""},
           {"[cuda]\nversion = \"12.1\"\ncomponents = \"libcurand\"\n", "/p/cuda.toml:3:14: [cuda] components must be an array"},
           {"cuda = 3\n", "/p/cuda.toml:1:1: cuda must be a table"},
           {"[cuda]\nversion = \"12.1\"\n[env]\n1BAD = \"x\"\n", "/p/cuda.toml:4:1: [env] 1BAD is not a variable name"},
       }) {
    INFO(c.text);
    auto parsed = parse_cuda_toml(kFile, c.text);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.error().message, Catch::StartsWith(c.message_start));
    CHECK_FALSE(parsed.error().hint.empty());
  }
}

TEST_CASE("cuda.toml: unknown keys are warnings with their position, not errors") {
  auto parsed = parse_cuda_toml(kFile, "[cuda]\nversion = \"12.1\"\nvesion = \"x\"\n[tools]\n");
  REQUIRE(parsed.ok());
  CHECK(parsed->warnings == std::vector<std::string>{"/p/cuda.toml:3:1: unknown key 'cuda.vesion' ignored",
                                                      "/p/cuda.toml:4:2: unknown key 'tools' ignored"});
}

TEST_CASE("cuda.toml: set_cuda_toml_version changes only the version text") {
  const std::string original =
      "# project toolkit\n[cuda]\nversion = \"11.8\"   # pinned for deepspeed\nprofile = \"torch\"\n\n"
      "[torch]\nversion = \"2.1.2\" # keep\n";
  auto edited = set_cuda_toml_version(kFile, original, "12.1");
  REQUIRE(edited.ok());
  CHECK(*edited ==
        "# project toolkit\n[cuda]\nversion = \"12.1\"   # pinned for deepspeed\nprofile = \"torch\"\n\n"
        "[torch]\nversion = \"2.1.2\" # keep\n");
  auto reparsed = parse_cuda_toml(kFile, *edited);
  REQUIRE(reparsed.ok());
  CHECK(reparsed->version == "12.1");
}

TEST_CASE("cuda.toml: set_cuda_toml_version adds what is missing and keeps the rest") {
  SECTION("a [cuda] table without version gets the line under its header") {
    auto edited = set_cuda_toml_version(kFile, "# c\n[cuda] # here\nprofile = \"full\"\n", "12.4");
    REQUIRE(edited.ok());
    CHECK(*edited == "# c\n[cuda] # here\nversion = \"12.4\"\nprofile = \"full\"\n");
  }
  SECTION("a file without [cuda] gets the table appended") {
    auto edited = set_cuda_toml_version(kFile, "[torch]\nversion = \"2.3.0\"", "12.1");
    REQUIRE(edited.ok());
    CHECK(*edited == "[torch]\nversion = \"2.3.0\"\n\n[cuda]\nversion = \"12.1\"\n");
    CHECK(parse_cuda_toml(kFile, *edited).ok());
  }
  SECTION("a float version is replaced by a string") {
    auto edited = set_cuda_toml_version(kFile, "[cuda]\nversion = 12.1\n", "12.1");
    REQUIRE(edited.ok());
    CHECK(*edited == "[cuda]\nversion = \"12.1\"\n");
  }
  SECTION("a file that does not parse is left alone") {
    auto edited = set_cuda_toml_version(kFile, "[cuda\n", "12.1");
    REQUIRE_FALSE(edited.ok());
    CHECK_THAT(edited.error().message, Catch::StartsWith("/p/cuda.toml:1:"));
  }
}

TEST_CASE("version requests never name a path") {
  for (const char* good : {"12", "12.1.1", "system", "my-cuda_1", "12.4+local"}) CHECK(is_valid_version_request(good));
  for (const char* bad : {"", ".", "..", "../x", "a/b", "12..1", " 12", "12 ", "-x", "+1"}) {
    INFO(bad);
    CHECK_FALSE(is_valid_version_request(bad));
  }
}

TEST_CASE("cuda.toml: non-ASCII outside strings and comments is refused before toml++ sees it") {
  const fs::path path = "/p/cuda.toml";
  CHECK(parse_cuda_toml(path, "[cuda]\nversion = \"12.1\" # caf\xc3\xa9\n"));
  CHECK(parse_cuda_toml(path, "[cuda]\nversion = \"12.1\"\n[env]\nA = \"caf\xc3\xa9\"\nB = 'caf\xc3\xa9'\n"
                              "C = \"\"\"\ncaf\xc3\xa9 \\\"\"\"\"\nD = '''caf\xc3\xa9\n'''\n"));
  auto key = parse_cuda_toml(path, "[cuda]\nversion\xc3\xa9 = \"12.1\"\n");
  REQUIRE_FALSE(key);
  CHECK(key.error().message == "/p/cuda.toml:2:8: a character beyond ASCII outside a quoted string or a comment");
  auto after_string = parse_cuda_toml(path, "[cuda]\nversion = \"\xc3\xa9\"\xc3\xa9\n");
  REQUIRE_FALSE(after_string);
  CHECK(after_string.error().message.rfind("/p/cuda.toml:2:14: ", 0) == 0);
  // What tests/fuzz/fuzz_toml found: U+FEFD after a key, undefined behaviour inside toml++.
  std::string found = "[cuda]\nveff\xef\xbb\xbd" + std::string(40, 'f') + "[cuda]\nvrso\x01";
  CHECK_FALSE(parse_cuda_toml(path, found));
  CHECK_FALSE(set_cuda_toml_version(path, found, "12.4"));
  // And its second find: toml++'s error path scanning on into what looks like a string.
  auto bare_value = parse_cuda_toml(path, "[cuda]\nversion = 1x\"\xc3\xa9\"\n");
  REQUIRE_FALSE(bare_value);
  CHECK(bare_value.error().message.rfind("/p/cuda.toml:2:", 0) == 0);
  CHECK_FALSE(set_cuda_toml_version(path, "[cuda]\nversion = 1x\"\xc3\xa9\"\n", "12.4"));
}

TEST_CASE("cuda.toml: `use` edits the right bytes after non-ASCII text on the line") {
  const fs::path path = "/p/cuda.toml";
  std::string text = "cuda = { note = \"caf\xc3\xa9 \xe6\x97\xa5\", version = \"12.1\" }  # \xc3\xa9\n";
  auto edited = set_cuda_toml_version(path, text, "12.4");
  REQUIRE(edited);
  CHECK(*edited == "cuda = { note = \"caf\xc3\xa9 \xe6\x97\xa5\", version = \"12.4\" }  # \xc3\xa9\n");
  auto parsed = parse_cuda_toml(path, *edited);
  REQUIRE(parsed);
  CHECK(parsed->version == "12.4");
}
