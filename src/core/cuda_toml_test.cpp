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
  CHECK(parsed->warnings ==
        std::vector<std::string>{"/p/cuda.toml:3:1: unknown key 'cuda.vesion' ignored (did you mean version?)",
                                 "/p/cuda.toml:4:2: unknown key 'tools' ignored"});
}

TEST_CASE("cuda.toml: thousands of unknown keys give ten warnings and a count") {
  std::string text = "[cuda]\nversion = \"12.1\"\n";
  for (int i = 0; i < 5000; ++i) text += "k" + std::to_string(i) + " = 1\n";
  auto parsed = parse_cuda_toml(kFile, text);
  REQUIRE(parsed.ok());
  REQUIRE(parsed->warnings.size() == 11);
  CHECK(parsed->warnings.front() == "/p/cuda.toml:3:1: unknown key 'cuda.k0' ignored");
  CHECK(parsed->warnings.back() == "/p/cuda.toml: 4990 more unknown keys ignored");
}

TEST_CASE("cuda.toml: warnings and the first error follow the file, not the keys' order") {
  auto parsed = parse_cuda_toml(kFile, "[torch]\nzz = 1\n[cuda]\nversion = \"12.1\"\nprofle = \"torch\"\narhc = []\n[cuda2]\n");
  REQUIRE(parsed.ok());
  CHECK(parsed->warnings ==
        std::vector<std::string>{"/p/cuda.toml:2:1: unknown key 'torch.zz' ignored",
                                 "/p/cuda.toml:5:1: unknown key 'cuda.profle' ignored (did you mean profile?)",
                                 "/p/cuda.toml:6:1: unknown key 'cuda.arhc' ignored (did you mean arch?)",
                                 "/p/cuda.toml:7:2: unknown key 'cuda2' ignored (did you mean cuda?)"});
  auto broken = parse_cuda_toml(kFile, "[cuda]\nversion = \"12.1\"\nprofile = 1\narch = 2\n");
  REQUIRE_FALSE(broken.ok());
  CHECK_THAT(broken.error().message, Catch::StartsWith("/p/cuda.toml:3:11: [cuda] profile"));
}

TEST_CASE("cuda.toml: TOML syntax errors say what is wrong and what to write") {
  struct Case {
    const char* text;
    const char* message;
    const char* hint;
  };
  for (const Case& c : std::vector<Case>{
           {"[cuda]\nversion = \n", "/p/cuda.toml:2:11: 'version' has no value", "give it one, e.g. version = \"12.1\""},
           {"[cuda]\nversion = 12.1.1\n", "/p/cuda.toml:2:15: version = 12.1.1 is not a TOML value",
            "quote it: version = \"12.1.1\""},
           {"[cuda]\nversion = \"12.1\n", "/p/cuda.toml:2:16: a string is not closed on its line",
            "end it with the quote it started with, e.g. version = \"12.1\""},
           {"[cuda\nversion = \"12.1\"\n", "/p/cuda.toml:1:6: a table header is not closed",
            "write it as [cuda], [torch] or [env]"},
           {"[cuda]\nversion = \"12.1\"\nversion = \"12.4\"\n", "/p/cuda.toml:3:11: 'version' is set twice in the same table",
            "keep one of the two lines"},
           {"[cuda]\nversion: \"12.1\"\n",
            "/p/cuda.toml:2:8: a key is not followed by =", "write each setting as key = value, e.g. version = \"12.1\""},
           {"[cuda]\nversion = \"12.1\"\n[cuda]\n", "/p/cuda.toml:3:1: a table is defined twice",
            "keep one [cuda] header and put all its keys under it"},
           {"[cuda]\nversion = \"12.1\" \"x\"\n", "/p/cuda.toml:2:18: there is more on the line after the value",
            "one value per line; a comment starts with #"},
       }) {
    INFO(c.text);
    auto parsed = parse_cuda_toml(kFile, c.text);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error().message == c.message);
    CHECK(parsed.error().hint == c.hint);
    CHECK(parsed.error().message.find("Error while parsing") == std::string::npos);
  }
  auto edited = set_cuda_toml_key(kFile, "[cuda]\nversion = \n", "version", "12.4");
  REQUIRE_FALSE(edited.ok());
  CHECK(edited.error().hint == "give it one, e.g. version = \"12.1\"\nthe file was left as it was");
}

TEST_CASE("cuda.toml: set_cuda_toml_key changes only the version text") {
  const std::string original =
      "# project toolkit\n[cuda]\nversion = \"11.8\"   # pinned for deepspeed\nprofile = \"torch\"\n\n"
      "[torch]\nversion = \"2.1.2\" # keep\n";
  auto edited = set_cuda_toml_key(kFile, original, "version", "12.1");
  REQUIRE(edited.ok());
  CHECK(*edited ==
        "# project toolkit\n[cuda]\nversion = \"12.1\"   # pinned for deepspeed\nprofile = \"torch\"\n\n"
        "[torch]\nversion = \"2.1.2\" # keep\n");
  auto reparsed = parse_cuda_toml(kFile, *edited);
  REQUIRE(reparsed.ok());
  CHECK(reparsed->version == "12.1");
}

TEST_CASE("cuda.toml: set_cuda_toml_key adds what is missing and keeps the rest") {
  SECTION("a [cuda] table without version gets the line under its header") {
    auto edited = set_cuda_toml_key(kFile, "# c\n[cuda] # here\nprofile = \"full\"\n", "version", "12.4");
    REQUIRE(edited.ok());
    CHECK(*edited == "# c\n[cuda] # here\nversion = \"12.4\"\nprofile = \"full\"\n");
  }
  SECTION("a file without [cuda] gets the table appended") {
    auto edited = set_cuda_toml_key(kFile, "[torch]\nversion = \"2.3.0\"", "version", "12.1");
    REQUIRE(edited.ok());
    CHECK(*edited == "[torch]\nversion = \"2.3.0\"\n\n[cuda]\nversion = \"12.1\"\n");
    CHECK(parse_cuda_toml(kFile, *edited).ok());
  }
  SECTION("a float version is replaced by a string") {
    auto edited = set_cuda_toml_key(kFile, "[cuda]\nversion = 12.1\n", "version", "12.1");
    REQUIRE(edited.ok());
    CHECK(*edited == "[cuda]\nversion = \"12.1\"\n");
  }
  SECTION("a file that does not parse is left alone") {
    auto edited = set_cuda_toml_key(kFile, "[cuda\n", "version", "12.1");
    REQUIRE_FALSE(edited.ok());
    CHECK_THAT(edited.error().message, Catch::StartsWith("/p/cuda.toml:1:"));
  }
}

TEST_CASE("cuda.toml: a file without a version pins nothing") {
  for (const char* text : {"", "[torch]\nversion = \"2.1.2\"\n", "[cuda]\narch = [\"8.9\"]\n"}) {
    INFO(text);
    auto parsed = parse_cuda_toml(kFile, text);
    REQUIRE(parsed.ok());
    CHECK(parsed->version.empty());
  }
}

TEST_CASE("cuda.toml: unset_cuda_toml_key removes the pin and keeps the rest") {
  auto only_pin = unset_cuda_toml_key(kFile, "[cuda]\nversion = \"12.1\"\n", "version");
  REQUIRE(only_pin.ok());
  CHECK_FALSE(only_pin->has_value());
  auto with_comment = unset_cuda_toml_key(kFile, "# the project\n[cuda]\nversion = \"12.1\" # pin\n", "version");
  REQUIRE(with_comment.ok());
  CHECK_FALSE(with_comment->has_value());

  auto others = unset_cuda_toml_key(
      kFile, "# mine\n[cuda]\nversion = \"12.1\"  # pin\narch = [\"8.9\"]\n\n[torch]\nversion = \"2.1.2\"\n", "version");
  REQUIRE(others.ok());
  REQUIRE(others->has_value());
  CHECK(**others == "# mine\n[cuda]\narch = [\"8.9\"]\n\n[torch]\nversion = \"2.1.2\"\n");

  auto other_table = unset_cuda_toml_key(kFile, "[torch]\nversion = \"2.1.2\"\n\n[cuda]\nversion = \"12.1\"\n", "version");
  REQUIRE(other_table.ok());
  REQUIRE(other_table->has_value());
  CHECK(**other_table == "[torch]\nversion = \"2.1.2\"\n\n");
  auto reparsed = parse_cuda_toml(kFile, **other_table);
  REQUIRE(reparsed.ok());
  CHECK(reparsed->version.empty());
  CHECK(reparsed->torch_version == "2.1.2");

  auto multiline = unset_cuda_toml_key(kFile, "[cuda]\nversion = \"\"\"\n12.1\"\"\"\nprofile = \"torch\"\n", "version");
  REQUIRE(multiline.ok());
  CHECK(**multiline == "[cuda]\nprofile = \"torch\"\n");

  auto nothing = unset_cuda_toml_key(kFile, "[torch]\nversion = \"2.1.2\"\n", "version");
  REQUIRE(nothing.ok());
  CHECK(**nothing == "[torch]\nversion = \"2.1.2\"\n");

  CHECK_FALSE(unset_cuda_toml_key(kFile, "cuda = { version = \"12.1\" }\n", "version").ok());
  CHECK_FALSE(unset_cuda_toml_key(kFile, "[cuda]\nversion = \n", "version").ok());
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
  CHECK(parse_cuda_toml(path,
                        "[cuda]\nversion = \"12.1\"\n[env]\nA = \"caf\xc3\xa9\"\nB = 'caf\xc3\xa9'\n"
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
  CHECK_FALSE(set_cuda_toml_key(path, found, "version", "12.4"));
  // And its second find: toml++'s error path scanning on into what looks like a string.
  auto bare_value = parse_cuda_toml(path, "[cuda]\nversion = 1x\"\xc3\xa9\"\n");
  REQUIRE_FALSE(bare_value);
  CHECK(bare_value.error().message.rfind("/p/cuda.toml:2:", 0) == 0);
  CHECK_FALSE(set_cuda_toml_key(path, "[cuda]\nversion = 1x\"\xc3\xa9\"\n", "version", "12.4"));
}

TEST_CASE("cuda.toml: `use` edits the right bytes after non-ASCII text on the line") {
  const fs::path path = "/p/cuda.toml";
  std::string text = "cuda = { note = \"caf\xc3\xa9 \xe6\x97\xa5\", version = \"12.1\" }  # \xc3\xa9\n";
  auto edited = set_cuda_toml_key(path, text, "version", "12.4");
  REQUIRE(edited);
  CHECK(*edited == "cuda = { note = \"caf\xc3\xa9 \xe6\x97\xa5\", version = \"12.4\" }  # \xc3\xa9\n");
  auto parsed = parse_cuda_toml(path, *edited);
  REQUIRE(parsed);
  CHECK(parsed->version == "12.4");
}

TEST_CASE("libraries: names and version prefixes as cuda.toml writes them") {
  auto plain = parse_library_spec("cudnn", "[cuda] libraries");
  REQUIRE(plain.ok());
  CHECK(plain->name == "cudnn");
  CHECK(plain->version.empty());
  auto pinned = parse_library_spec("nccl@2.28", "[cuda] libraries");
  REQUIRE(pinned.ok());
  CHECK(pinned->version == "2.28");
  CHECK(pinned->text() == "nccl@2.28");
  auto typo = parse_library_spec("cudn", "[cuda] libraries");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().hint == "did you mean cudnn? cudaenv installs these libraries: cudnn, nccl");
  auto no_version = parse_library_spec("cudnn@", "--library");
  REQUIRE_FALSE(no_version.ok());
  CHECK(no_version.error().message == "--library entry 'cudnn@' has no version after '@'");
}

TEST_CASE("cuda.toml: [cuda] host_compiler and [torch] backend") {
  auto parsed = parse_cuda_toml(kFile, "[cuda]\nversion = \"12.4\"\nhost_compiler = \"gcc-12\"\n[torch]\nbackend = \"cpu\"\n");
  REQUIRE(parsed.ok());
  CHECK(parsed->host_compiler == "gcc-12");
  CHECK(parsed->torch_backend == "cpu");
  auto defaults = parse_cuda_toml(kFile, "[cuda]\nversion = \"12.4\"\n");
  REQUIRE(defaults.ok());
  CHECK_FALSE(defaults->host_compiler);
  CHECK(defaults->torch_backend == "auto");
  auto bad_backend = parse_cuda_toml(kFile, "[torch]\nbackend = \"cu124\"\n");
  REQUIRE_FALSE(bad_backend.ok());
  CHECK(bad_backend.error().message == "/p/cuda.toml:2:11: [torch] backend \"cu124\" is unknown");
  for (const char* bad : {"host_compiler = \"\"", "host_compiler = \"gcc\\n12\"", "host_compiler = 12"}) {
    CHECK_FALSE(parse_cuda_toml(kFile, std::string("[cuda]\n") + bad + "\n").ok());
  }
}

TEST_CASE("cuda.toml: set and unset [cuda] host_compiler beside the version") {
  auto added = set_cuda_toml_key(kFile, "# mine\n[cuda]\nversion = \"12.4\"\n", "host_compiler", "gcc-12");
  REQUIRE(added.ok());
  CHECK(*added == "# mine\n[cuda]\nhost_compiler = \"gcc-12\"\nversion = \"12.4\"\n");
  auto changed = set_cuda_toml_key(kFile, *added, "host_compiler", "/opt/gcc 11/bin/gcc");
  REQUIRE(changed.ok());
  CHECK(parse_cuda_toml(kFile, *changed)->host_compiler == "/opt/gcc 11/bin/gcc");
  auto removed = unset_cuda_toml_key(kFile, *added, "host_compiler");
  REQUIRE(removed.ok());
  REQUIRE(removed->has_value());
  CHECK(**removed == "# mine\n[cuda]\nversion = \"12.4\"\n");
  auto only = unset_cuda_toml_key(kFile, "[cuda]\nhost_compiler = \"gcc-12\"\n", "host_compiler");
  REQUIRE(only.ok());
  CHECK_FALSE(only->has_value());  // nothing left: the file goes
  auto fresh = set_cuda_toml_key(kFile, "", "host_compiler", "gcc-12");
  REQUIRE(fresh.ok());
  CHECK(*fresh == "[cuda]\nhost_compiler = \"gcc-12\"\n");
}
