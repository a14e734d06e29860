#include "install/byte_source.h"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

using namespace cudaenv;

namespace {

// Lends the pieces it is given, in order, and reads what is left 2 bytes at a time.
struct Pieces : ByteSource {
  std::vector<std::string> pieces;
  size_t next = 0;
  std::string_view lent, rest;
  std::string given_back;
  Result<size_t> read(std::span<std::uint8_t> out) override {
    if (rest.empty() && next < pieces.size()) rest = pieces[next++];
    size_t size = std::min({out.size(), rest.size(), size_t{2}});
    std::copy_n(rest.begin(), size, out.begin());
    rest.remove_prefix(size);
    return size;
  }
  std::span<const std::uint8_t> lend() override {
    if (!rest.empty() || next == pieces.size()) return {};
    lent = pieces[next++];
    return {reinterpret_cast<const std::uint8_t*>(lent.data()), lent.size()};
  }
  void give_back(size_t count) override {
    given_back = std::string(lent.substr(lent.size() - count));
    rest = lent.substr(lent.size() - count);
  }
};

std::string text(std::span<const std::uint8_t> bytes) { return {reinterpret_cast<const char*>(bytes.data()), bytes.size()}; }

// What a fill for `count` bytes holds; it must not fail.
std::span<const std::uint8_t> filled(SourceBuffer& buffer, size_t count) {
  auto got = buffer.fill(count);
  REQUIRE(got);
  return *got;
}

}  // namespace

TEST_CASE("source buffer: lent bytes are read in place, and given back where an unconsume crosses their start") {
  Pieces source;
  source.pieces = {"abc", "defgh", "ij"};
  SourceBuffer buffer(source, 64);
  auto got = filled(buffer, 1);
  CHECK(text(got) == "abc");
  CHECK(got.data() == reinterpret_cast<const std::uint8_t*>(source.pieces[0].data()));  // in place
  buffer.consume(3);
  got = filled(buffer, 1);
  CHECK(text(got) == "defgh");
  buffer.consume(2);
  // Back 4: 2 of this piece and 2 of the one before; the 3 not consumed go back to the source.
  buffer.unconsume(4);
  CHECK(source.given_back == "fgh");
  CHECK(buffer.offset() == 1);
  got = filled(buffer, 9);
  CHECK(text(got) == "bcdefghij");
}

TEST_CASE("source buffer: a fill for more than the lent piece holds copies the rest and reads on") {
  Pieces source;
  source.pieces = {"abcdef", "ghijkl"};
  SourceBuffer buffer(source, 64);
  auto got = filled(buffer, 1);
  CHECK(text(got) == "abcdef");
  buffer.consume(4);
  got = filled(buffer, 5);  // "ef" lent, then "ghi..." read
  CHECK(text(got).substr(0, 5) == "efghi");
  buffer.consume(3);
  buffer.unconsume(7);  // back into the bytes consumed before, still kept
  got = filled(buffer, 1);
  CHECK(text(got).substr(0, 8) == "abcdefgh");
}

TEST_CASE("source buffer: a piece smaller than what a fill needs is given back whole and read") {
  Pieces source;
  source.pieces = {"ab", "cdefgh"};
  SourceBuffer buffer(source, 64);
  auto got = filled(buffer, 4);
  CHECK(source.given_back == "ab");
  CHECK(text(got).substr(0, 4) == "abcd");
}
