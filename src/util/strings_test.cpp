#include <catch2/catch.hpp>

#include "util/strings.h"

using namespace cudaenv;

TEST_CASE("terminal_safe: control characters and broken UTF-8 are shown escaped") {
  CHECK(terminal_safe("12.4 \x1b[31mred\x1b[0m") == "12.4 \\x1b[31mred\\x1b[0m");
  CHECK(terminal_safe("a\nb\tc\rd\x7f") == "a\\nb\\tc\\rd\\x7f");
  CHECK(terminal_safe(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(terminal_safe("/home/jos\xc3\xa9/\xe6\x97\xa5") == "/home/jos\xc3\xa9/\xe6\x97\xa5");  // UTF-8 stays
  CHECK(terminal_safe("\xc2\x9b"
                      "2J") == "\\u009b2J");  // C1 CSI, as UTF-8
  CHECK(terminal_safe("\x9b"
                      "2J") == "\\x9b2J");  // C1 CSI, as a raw byte
  CHECK(terminal_safe("\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe6\x97") ==
        "\\xc0\\xaf \\xed\\xa0\\x80 \\xf4\\x90\\x80\\x80 \\xe6\\x97");  // overlong, surrogate, > U+10FFFF, cut
}

TEST_CASE("parse_decimal: digits only, within the range") {
  CHECK(parse_decimal("12040") == 12040u);
  CHECK(parse_decimal("0") == 0u);
  CHECK(parse_decimal("18446744073709551615") == 18446744073709551615ull);
  CHECK_FALSE(parse_decimal("18446744073709551616"));
  CHECK_FALSE(parse_decimal("99999999999999999999999999"));
  CHECK_FALSE(parse_decimal("1000", 999));
  CHECK_FALSE(parse_decimal(""));
  CHECK_FALSE(parse_decimal("-1"));
  CHECK_FALSE(parse_decimal("+1"));
  CHECK_FALSE(parse_decimal(" 1"));
  CHECK_FALSE(parse_decimal("1 "));
  CHECK_FALSE(parse_decimal("0x10"));
}

TEST_CASE("shell quoting keeps every byte: posix closes and reopens at a quote, fish escapes quote and backslash") {
  CHECK(posix_quote("") == "''");
  CHECK(posix_quote("it's a $HOME \\ \"x\"\n") == "'it'\\''s a $HOME \\ \"x\"\n'");
  CHECK(fish_quote("it's a $HOME \\ \"x\"\n") == "'it\\'s a $HOME \\\\ \"x\"\n'");
}

TEST_CASE("closest_word: a likely typo names the choice it was meant for, anything else none") {
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  std::vector<std::string> choices{"cudnn", "nccl"};
  CHECK(closest_word("cudn", choices) == "cudnn");
  CHECK(closest_word("ncll", choices) == "nccl");
  CHECK_FALSE(closest_word("tensorrt", choices));
  CHECK_FALSE(closest_word("x", {}));
}
