#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "install/byte_source.h"
#include "install/decompressor.h"
#include "support/deflated.h"

using namespace cudaenv;

namespace {

std::string gzipped(const std::string& text) { return deflated(text, 15 + 16); }

// Decodes the whole file as TarStream reads it, in pieces of at most `piece` bytes: the text, or
// the error.
Result<std::string> gunzip(const std::string& file, size_t piece) {
  MemorySource source({reinterpret_cast<const std::uint8_t*>(file.data()), file.size()});
  SourceBuffer in(source, piece + SourceBuffer::kKept);
  CUDAENV_TRY_ASSIGN(auto decoder, Decompressor::make(Decompressor::Format::gzip));
  std::vector<std::uint8_t> out(1000);
  std::string text;
  for (int steps = 0; steps < 100000; ++steps) {
    CUDAENV_TRY_ASSIGN(auto input, in.fill(1));
    CUDAENV_TRY_ASSIGN(auto step, decoder->decode(input, out, in.ended()));
    in.consume(step.read);
    in.unconsume(step.unread);
    text.append(reinterpret_cast<const char*>(out.data()), step.written);
    if (step.end) return text;
  }
  return make_error("no end");
}

}  // namespace

TEST_CASE("gzip: members one after another decode to their texts, in pieces of any size") {
  std::string a(5000, 'a'), b = "second member\n";
  for (size_t piece : {1, 7, 64, 4096}) {
    auto text = gunzip(gzipped(a) + gzipped(b), piece);
    REQUIRE(text);
    CHECK(*text == a + b);
  }
}

TEST_CASE("gzip: a few bytes after the stream are refused, although the inflater read past its end") {
  // ISA-L reads up to 8 bytes beyond a deflate stream into its bit buffer: they are given back.
  for (const std::string tail : {"x", "xyz", "1234567", "12345678", "123456789"}) {
    for (size_t piece : {3, 64, 4096}) {
      auto text = gunzip(gzipped("the member") + tail, piece);
      REQUIRE_FALSE(text);
      CHECK(text.error().message == "it has data after its gzip stream");
    }
  }
}

TEST_CASE("gzip: a wrong CRC-32 or length in the trailer fails the check") {
  std::string file = gzipped("checked text");
  for (size_t at : {file.size() - 8, file.size() - 1}) {  // the CRC-32's first byte, the length's last
    std::string damaged = file;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
    auto text = gunzip(damaged, 4096);
    REQUIRE_FALSE(text);
    CHECK(text.error().message == "its gzip data fails its CRC-32 or length check: the data is corrupt");
  }
}
