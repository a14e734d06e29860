// The lean resolver's caches (src/lean/lean_cache.h): their text read back to what was written,
// anything else refused, and the rule that says when a cache still holds.
#include <catch2/catch.hpp>

#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lean/lean_cache.h"
#include "lean/lean_toml.h"

namespace {

const char kMagic[] = "cudaenv-test-1";

lean_stamp a_stamp() { return lean_stamp{2049, 1234567, 24576, {1796146847, 703070126}, {1796146848, 5}}; }

std::string cache_text(const lean_stamp& stamp, lean_time started, const std::string& body) {
  char header[LEAN_CACHE_HEADER_MAX];
  size_t n = lean_cache_header(header, kMagic, &stamp, started, body.data(), body.size());
  REQUIRE(n > 0);
  return std::string(header, n) + body;
}

bool parses(const std::string& text, std::string* body = nullptr) {
  lean_stamp stamp;
  lean_time started;
  const char* begin = nullptr;
  size_t size = 0;
  if (!lean_cache_parse(text.data(), text.size(), kMagic, &stamp, &started, &begin, &size)) return false;
  if (body) body->assign(begin, size);
  return true;
}

using Entries = std::vector<std::pair<std::string, int>>;

// lean_index_entries of `body`: what it calls, or nullopt where it refuses (then calling nothing).
std::optional<Entries> entries_of(std::string body) {
  Entries seen;
  auto each = [](void* context, const char* name, int not_a_link) {
    static_cast<Entries*>(context)->emplace_back(name, not_a_link);
  };
  int ok = lean_index_entries(body.data(), body.size(), each, &seen);
  if (!ok) {
    REQUIRE(seen.empty());
    return std::nullopt;
  }
  return seen;
}

std::string index_body(const Entries& entries) {
  std::string body;
  for (const auto& [name, not_a_link] : entries) {
    std::string line(name.size() + 2, '\0');
    REQUIRE(lean_index_line(line.data(), name.c_str(), not_a_link) == line.size());
    body += line;
  }
  return body;
}

std::string text_of(lean_span span) { return std::string(span.text ? span.text : "", span.size); }

}  // namespace

TEST_CASE("lean cache: a cache holds while its stamp is unchanged and was older than its start") {
  lean_stamp recorded = a_stamp();
  lean_time later{recorded.ctime.s, recorded.ctime.ns + 1};
  CHECK(lean_cache_is_fresh(&recorded, later, &recorded));
  CHECK(lean_cache_is_fresh(&recorded, lean_time{recorded.ctime.s + 1, 0}, &recorded));
  // Changed in the same tick as the start (or after): a later change in that tick would not show.
  CHECK_FALSE(lean_cache_is_fresh(&recorded, recorded.ctime, &recorded));
  CHECK_FALSE(lean_cache_is_fresh(&recorded, lean_time{recorded.ctime.s, 4}, &recorded));
  CHECK_FALSE(lean_cache_is_fresh(&recorded, lean_time{recorded.ctime.s - 1, 999999999}, &recorded));
  // Any part of the stamp that differs.
  for (int part = 0; part < 7; ++part) {
    lean_stamp now = recorded;
    switch (part) {
      case 0: ++now.dev; break;
      case 1: ++now.ino; break;
      case 2: now.size += 4096; break;
      case 3: ++now.mtime.ns; break;
      case 4: ++now.mtime.s; break;
      case 5: ++now.ctime.ns; break;
      case 6: --now.ctime.s; break;
    }
    INFO("part " << part);
    CHECK_FALSE(lean_cache_is_fresh(&recorded, later, &now));
  }
}

TEST_CASE("lean cache: the header reads back to what was written") {
  lean_stamp stamp = a_stamp();
  stamp.dev = 18446744073709551615ull;  // the largest: every number of 64 bits reads back
  lean_time started{1796147166, 499184417};
  std::string text = cache_text(stamp, started, "n12.4.1\nu13.0\n");
  lean_stamp read;
  lean_time read_started;
  const char* body = nullptr;
  size_t size = 0;
  REQUIRE(lean_cache_parse(text.data(), text.size(), kMagic, &read, &read_started, &body, &size));
  CHECK(read.dev == stamp.dev);
  CHECK(read.ino == stamp.ino);
  CHECK(read.size == stamp.size);
  CHECK((read.mtime.s == stamp.mtime.s && read.mtime.ns == stamp.mtime.ns));
  CHECK((read.ctime.s == stamp.ctime.s && read.ctime.ns == stamp.ctime.ns));
  CHECK((read_started.s == started.s && read_started.ns == started.ns));
  CHECK(std::string(body, size) == "n12.4.1\nu13.0\n");
  std::string empty = cache_text(stamp, started, "");
  std::string empty_body = "x";
  CHECK(parses(empty, &empty_body));
  CHECK(empty_body.empty());
}

TEST_CASE("lean cache: a truncated, extended, changed or foreign cache file is refused") {
  lean_time started{1796147166, 1};
  const std::string body = "n11.1.0\nn11.2.0\nu12.4\n";
  const std::string text = cache_text(a_stamp(), started, body);
  REQUIRE(parses(text));
  for (size_t cut = 0; cut < text.size(); ++cut) {
    INFO("cut at " << cut);
    CHECK_FALSE(parses(text.substr(0, cut)));
  }
  CHECK_FALSE(parses(text + "n11.3.0\n"));
  for (size_t at = 0; at < text.size(); ++at) {
    std::string changed = text;
    changed[at] = static_cast<char>(changed[at] ^ 0x01);
    INFO("byte " << at << " changed");
    CHECK_FALSE(parses(changed));
  }
  std::string foreign = text;
  foreign.replace(0, std::strlen(kMagic), "cudaenv-test-2");
  CHECK_FALSE(parses(foreign));
  CHECK_FALSE(parses(std::string(4096, '\0')));
  CHECK_FALSE(parses(std::string(kMagic) + " 99999999999999999999 1 1 1 1 1 1 1 1 0 1\n"));  // past 2^64
  CHECK_FALSE(parses(std::string(kMagic) + " 1 1 1 1 1000000000 1 1 1 1 0 1\n"));            // 10^9 ns
  CHECK_FALSE(parses(std::string(kMagic) + " 1 1 1 -1 1 1 1 1 1 0 1\n"));
  CHECK_FALSE(parses(std::string(kMagic) + "  1 1 1 1 1 1 1 1 1 0 1\n"));
  lean_stamp negative = a_stamp();
  negative.mtime.s = -5;
  char header[LEAN_CACHE_HEADER_MAX];
  CHECK(lean_cache_header(header, kMagic, &negative, started, "", 0) == 0);
}

TEST_CASE("lean cache: an index body gives back every entry as listed") {
  const Entries listed = {{"12.4.1", 1}, {"13.0", 0},    {".staging-12.6.0-4242", 1}, {"a name with spaces", 0}, {"x", 1},
                          {"...", 0},    {"ünïcode", 1}, {std::string(300, 'n'), 0}};
  CHECK(entries_of(index_body(listed)) == listed);
  CHECK(entries_of("") == Entries{});
  // 1000 names, past the 16-byte steps and their ends.
  Entries many;
  for (int i = 0; i < 1000; ++i) many.emplace_back("11." + std::to_string(i) + ".0", i % 3 != 0);
  CHECK(entries_of(index_body(many)) == many);
  char line[8];
  CHECK(lean_index_line(line, "a\nb", 1) == 0);
  CHECK(lean_index_line(line, "", 1) == 0);
}

TEST_CASE("lean cache: an index body with a line no listing gives is refused whole") {
  const std::string good = index_body({{"12.4.1", 1}, {"13.0", 0}});
  for (const std::string& bad : {good + "n../x\n", good + "n.\n", good + "n..\n", good + "n\n", good + "\n", good + "x13\n",
                                 good + "n13.1", good + std::string("n1\0x\n", 5), "n" + std::string(40, 'a') + "/b\n" + good,
                                 std::string("u\0\n", 3), good + "N13.1\n", good + "n1\n2\n"}) {
    INFO("body: " << bad);
    CHECK_FALSE(entries_of(bad));
  }
}

TEST_CASE("lean cache: a cuda.toml's parse reads back to what lean_read_cuda_toml gave") {
  for (const char* file :
       {"", "[cuda]\nversion = \"12.1\"\n", "[cuda]\nversion = '12.4.1'\narch = [\"8.9\", \"9.0a\", \"8.6+PTX\"]\n",
        "[cuda]\narch = [\"8.9\"]\n", "top = \"1\"\n[tool]\nx = \"y\"\n[cuda]\nversion = \"my-toolkit_1\"\nodd = \"z\"\n",
        "[env]\nA = \"x\"\n", "[cuda]\nversion = \"12.1\"\n[env]\nA = \"x\"\nB = \"y\"\n"}) {
    INFO("file: " << file);
    lean_cuda_toml parsed;
    REQUIRE(lean_read_cuda_toml(file, std::strlen(file), &parsed));
    std::string body(lean_toml_body(nullptr, &parsed), '\0');
    CHECK(lean_toml_body(body.data(), &parsed) == body.size());
    lean_cuda_toml cached;
    REQUIRE(lean_toml_from_body(body.data(), body.size(), &cached));
    CHECK(text_of(cached.version) == text_of(parsed.version));
    REQUIRE(cached.arch_count == parsed.arch_count);
    for (size_t i = 0; i < parsed.arch_count; ++i) CHECK(text_of(cached.arch[i]) == text_of(parsed.arch[i]));
    CHECK(cached.unknown_keys == parsed.unknown_keys);
    CHECK(cached.env_count == parsed.env_count);  // the hook hands a project with [env] to the full program
  }
}

TEST_CASE("lean cache: a parse body lean_read_cuda_toml could not give is refused") {
  lean_cuda_toml out;
  std::string many = "0 65 0\n12.1\n";
  for (int i = 0; i < 65; ++i) many += "8.9\n";
  for (const std::string& bad :
       {std::string(""), std::string("0 0 0\n"), std::string("0 0 0\n12.1\nextra\n"), std::string("0 1 0\n12.1\n"),
        std::string("0 1 0\n12.1\n8.9xy\n"), std::string("0 0 0\n../x\n"), std::string("x 0 0\n12.1\n"),
        std::string("0 0 0 \n12.1\n"), std::string("0 0 0\n12.1"), std::string("0 1 0\n12.1\n8.9"),
        std::string("0 0\n12.1\n"),  // the format before [env] was counted: a miss, parsed again
        many}) {
    INFO("body: " << bad);
    CHECK_FALSE(lean_toml_from_body(bad.data(), bad.size(), &out));
  }
  const std::string empty_version = "3 0 2\n\n";
  REQUIRE(lean_toml_from_body(empty_version.data(), empty_version.size(), &out));
  CHECK(out.version.size == 0);
  CHECK(out.unknown_keys == 3);
  CHECK(out.env_count == 2);
}
