// The lean cuda.toml reader (src/lean/lean_toml.h) against the full one (core/cuda_toml.h):
// whatever the lean one reads, the full one reads without an error and to the same version
// and arch list, with warnings where it counts unknown keys; the rest it leaves to the full one.
#include <catch2/catch.hpp>

#include "core/cuda_toml.h"
#include "core/version.h"
#include "lean/lean_toml.h"

#include <cstring>
#include <vector>

using namespace cudaenv;

namespace {

const fs::path kFile = "/p/cuda.toml";

std::string text_of(lean_span span) { return std::string(span.text, span.size); }

// Whether the lean reader took `text`; where it did, the full reader agrees with it.
bool lean_agrees(const std::string& text) {
  lean_cuda_toml lean;
  if (!lean_read_cuda_toml(text.data(), text.size(), &lean)) return false;
  auto full = parse_cuda_toml(kFile, text);
  INFO("text: " << text);
  REQUIRE(full.ok());
  CHECK(full->version == text_of(lean.version));
  std::vector<std::string> arch;
  for (size_t i = 0; i < lean.arch_count; ++i) arch.push_back(text_of(lean.arch[i]));
  CHECK(full->arch == arch);
  // The lean `cudaenv` front hands a file with warnings to the full program, which prints them.
  CHECK((lean.unknown_keys > 0) == !full->warnings.empty());
  // ... and a file with [env] to cudaenv-hook, which asks whether it is trusted.
  CHECK(lean.env_count == full->env.size());
  return true;
}

// Files the lean reader must take: what projects write.
const char* const kCommon[] = {
    "",
    "[cuda]\nversion = \"12.1\"\n",
    "[cuda]\nversion = \"12.1\"",
    "# pinned by the team\n[cuda]\nversion = '12.4.1'  # see README\narch = [\"8.9\", \"9.0a\", \"8.6+PTX\"]\n",
    "[cuda]\narch = []\nversion = \"13.0\"\n",
    "[cuda]\nprofile = \"torch\"\ncomponents = [\"libcurand\", \"libcufft\"]\nversion = \"13.0\"\n\n[torch]\n"
    "version = \"2.5.1\"\n\n[env]\nFOO = \"bar baz\"\nX_1 = ''\n",
    "[tool]\nanything = \"x\"\n[cuda]\nversion = \"12\"\nunknown = \"ignored\"\n",
    "top = \"x\"\n[cuda]\nversion = \"my-toolkit_1\"\n",
    "\t[cuda]\n  version\t=\t\"12.1\"\t\n",
    "[env]\nA = \"x\"\n[cuda]\nversion = \"system\"\n",
    "[cuda]\n",
    // A table header inside a multi-line string is text, not a second [cuda].
    "[tool]\nnotes = \"\"\"\n[cuda]\nversion = \"1.0\"\n\"\"\"\n[cuda]\nversion = \"12.4\"\n",
    "[tool]\nnotes = '''\n[cuda]\n\\no escape \"here\"\n'''  # c\n[cuda]\nversion = \"12.4\"\n",
    "[tool]\nq = \"\"\"one \" and two \"\" quotes\"\"\"\nl = '''it's ''ok'''\n[cuda]\nversion = \"12.4\"\n",
    "[env]\nNOTE = \"\"\"\nline\n\"\"\"\n[torch]\nversion = '''2.5.1'''\n",
    "[cuda]\nsource = \"pypi\"\nversion = \"13.0\"\n",
    "[cuda]\nversion = \"12.4\"\n[env]\nA_VERY_LONG_VARIABLE_NAME_OF_MANY_BYTES = \"a value longer than sixteen bytes\"\n",
    "[torch]\nindex = \"x\"\n[cuda]\nversion = \"12.4\"\n",
    "[cuda]\nversion = \"12.4\"\n[other]\nkey = \"1\"\n",
};

// Files it must leave to the full reader (which may take them or refuse them).
const char* const kUnusual[] = {
    "[cuda]\nversion = 12.1\n",
    "[cuda]\nversion = \"12.1\"\nversion = \"12.2\"\n",
    "[cuda]\n[cuda]\n",
    "[cuda]\nversion = \"../x\"\n",
    "[cuda]\nversion = \"\"\n",
    "[cuda]\narch = [\"8.9xy\"]\n",
    "[cuda]\narch = \"8.9\"\n",
    "[cuda]\narch = [\"9.0\", \"80000000000.6g+PTX\"]\n",
    "[cuda]\nprofile = \"big\"\n",
    "[cuda]\nsource = \"nowhere\"\n",
    "[cuda]\nsource = [\"pypi\"]\n",
    "[cuda]\nlock = \"yes\"\n",
    "[cuda]\nlibraries = [\"no such library\"]\n",
    "[env]\n1X = \"a\"\n",
    "[env]\nA-B = \"a\"\n",
    "[env]\nX = 1\n",
    "[torch]\nversion = 2\n",
    "cuda = \"x\"\n",
    "[cuda]\r\nversion = \"12.1\"\r\n",
    "[cuda]\nversion = \"12.\\u0031\"\n",
    "[cuda]\nversion = \"\"\"12.1\"\"\"\n",
    "[cuda]\nversion = \"12.1\"#c\n",
    "[ cuda ]\nversion = \"12.1\"\n",
    "[cuda.sub]\n",
    "[[cuda]]\n",
    "cuda.version = \"12.1\"\n",
    "\"cuda\" = 1\n",
    "[cuda]\nversion = \"12.1\"\n# caf\xc3\xa9\n",
    "[cuda]\narch = [\"8.9\",]\n",
    "[cuda]\narch = [\n\"8.9\"\n]\n",
    "[cuda]\nversion = { a = 1 }\n",
    "[env]\nA = \"x\"\n[env]\n",
    "a = \"x\"\n[a]\n",
    "[cuda]\nversion = \"12.1\"\x01\n",
    "[cuda\nversion = \"12.1\"\n",
    "[cuda]\nversion = \"12.1\n",
    "[cuda]\nversion =\n",
    "[cuda]\nversion\n",
    "[cuda]\nsource = \"ftp\"\n",
    "[cuda]\nlibraries = [\"cudnn\"]\n",
    "[cuda]\nlock = true\n",
    "[tool]\nx = \"\"\"\n[cuda]\n",
    "[tool]\nx = \"\"\"a\"\"\"\"\n",
    "[tool]\nx = \"\"\"a\\nb\"\"\"\n",
    "[tool]\nx = '''a\r\nb'''\n",
    "[tool]\nx = '''a''' y\n",
    "[env]\nA_LONG-NAME_OF_MANY_BYTES_0123456789 = \"a\"\n",
    "[env]\nA_LONG_NAME_OF_MANY_BYTES_0123456789 = \"a value longer than sixteen bytes\\t\"\n",
};

}  // namespace

TEST_CASE("lean cuda.toml: reads what projects write, as the full reader does") {
  for (const char* text : kCommon) CHECK(lean_agrees(text));
}

TEST_CASE("lean cuda.toml: leaves unusual or broken files to the full reader") {
  for (const char* text : kUnusual) {
    INFO("text: " << text);
    CHECK_FALSE(lean_agrees(text));
  }
}

TEST_CASE("lean cuda.toml: a file that ends inside a multi-line string, or is empty") {
  // Found by tests/fuzz/fuzz_lean_toml: the quotes before the end were read past it. Each
  // text is a buffer of its exact size (no NUL after it), so ASan builds see such a read.
  for (const char* tail : {"\"", "\"\"", "'", "''", "\n", ""}) {
    for (const char* start : {"[tool]\nx = \"\"\"a", "[tool]\nx = '''a"}) {
      std::string text = std::string(start) + tail;
      std::vector<char> exact(text.begin(), text.end());
      lean_cuda_toml lean;
      INFO("text: " << text);
      CHECK_FALSE(lean_read_cuda_toml(exact.data(), exact.size(), &lean));
    }
  }
  lean_cuda_toml empty;
  CHECK(lean_read_cuda_toml(nullptr, 0, &empty));
  CHECK(empty.version.size == 0);
}

TEST_CASE("lean cuda.toml: a NUL byte is left to the full reader") {
  CHECK_FALSE(lean_agrees(std::string("[cuda]\nversion = \"12\0.1\"\n", 24)));
}

TEST_CASE("lean cuda.toml: every one-byte change of a common file is read alike or left alone") {
  // Deletions, and insertions of the characters that matter to TOML, at every position:
  // the lean reader may give up on any, but never read one differently.
  const std::string inserted = "\"'[]=#,. \t\n\\{}x0+-\x80";
  for (const char* common : kCommon) {
    std::string text = common;
    for (size_t i = 0; i <= text.size(); ++i) {
      if (i < text.size()) lean_agrees(text.substr(0, i) + text.substr(i + 1));
      for (char c : inserted) lean_agrees(text.substr(0, i) + c + text.substr(i));
    }
  }
}

TEST_CASE("lean cuda.toml: a 1 MB file of [env] keys and comments is read in one pass") {
  std::string text = "# generated\n[cuda]\nversion = \"12.4\"\narch = [\"9.0\"]\n[env]\n";
  for (int i = 0; text.size() < 1000000; ++i) {
    text += "VAR_" + std::to_string(i) + " = \"value number " + std::to_string(i) + "\"  # note\n";
  }
  CHECK(lean_agrees(text));
  // One key twice, far down: TOML refuses it, so the lean reader must notice.
  CHECK_FALSE(lean_agrees(text + "VAR_7 = \"again\"\n"));
  CHECK_FALSE(lean_agrees(text + "VAR_20000 = \"again\"\n"));
  // Long strings and comments, and a control character far into one of them.
  std::string strings = "[cuda]\nversion = \"12.4\"\n[tool]\nlong = \"" + std::string(200000, 'x') + "\"  # " +
                        std::string(200000, 'y') + "\nmulti = '''\n" + std::string(100000, 'z') + "\n'''\n";
  CHECK(lean_agrees(strings));
  for (size_t at : {size_t{100000}, size_t{300000}, size_t{450000}}) {
    std::string bad = strings;
    bad[at] = '\x01';
    CHECK_FALSE(lean_agrees(bad));
  }
}

TEST_CASE("lean cuda.toml: more keys than a small file's first key set holds") {
  // Under 4 KB the set starts at 512 slots and grows past 256 keys; larger files start with a
  // slot pair for every line.
  for (int keys : {300, 2000}) {
    std::string text = "[env]\n";
    for (int i = 0; i < keys; ++i) text += "K" + std::to_string(i) + "=''\n";
    CHECK(lean_agrees(text));
    CHECK_FALSE(lean_agrees(text + "K0=''\n"));
    CHECK_FALSE(lean_agrees(text + "K" + std::to_string(keys - 1) + "=''"));
  }
}

TEST_CASE("lean cuda.toml: the one check of a version request and of a compute capability") {
  for (const char* good : {"12.1", "12", "system", "my-toolkit", "_x", "12.1+local"}) {
    CHECK(lean_is_version_request(good, std::strlen(good)));
    CHECK(is_valid_version_request(good));
  }
  for (const char* bad : {"", ".hidden", "../etc", "12..1", "a/b", "-x", "12 1"}) {
    CHECK_FALSE(lean_is_version_request(bad, std::strlen(bad)));
    CHECK_FALSE(is_valid_version_request(bad));
  }
  // One answer from both readers of a cuda.toml arch entry: the shim's lean one and the C++ one.
  for (const char* good :
       {"8.9", "9.0a", "8.6+PTX", "10.0", "10.0f+PTX", "08.9", "123456789.987654321", "123456789.123456789a"}) {
    CHECK(lean_is_compute_capability(good, std::strlen(good)));
    CHECK(parse_arch_entry(good));
  }
  // Found by tests/fuzz/fuzz_lean_toml: parse_version() takes at most 9 digits a number.
  for (const char* bad : {"89", "8.", ".9", "8.9ab", "8.9+ptx", "8.9+PTXX", "", "+PTX", "8.9A", "sm_89", "8.9.1", "1234567890.0",
                          "8.0123456789", "99999999999999999999.0", "-8.9", "8.9 "}) {
    CHECK_FALSE(lean_is_compute_capability(bad, std::strlen(bad)));
    CHECK_FALSE(parse_arch_entry(bad));
  }
}
