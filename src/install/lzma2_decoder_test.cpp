#include "install/lzma2_decoder.h"

#include <lzma.h>
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "install/xz_blocks.h"

using namespace cudaenv;

namespace {

using Bytes = std::vector<std::uint8_t>;

struct Settings {
  std::uint32_t preset = 6;
  std::uint32_t dictionary = 0;  // the preset's when 0
  std::uint32_t lc = 3, lp = 0, pb = 2;
};

// `data` as liblzma's LZMA2 encoder writes it (the body of an xz block).
Bytes lzma2_of(const Bytes& data, const Settings& settings) {
  lzma_options_lzma options{};
  REQUIRE_FALSE(lzma_lzma_preset(&options, settings.preset));
  if (settings.dictionary) options.dict_size = settings.dictionary;
  options.lc = settings.lc;
  options.lp = settings.lp;
  options.pb = settings.pb;
  lzma_filter filters[] = {{LZMA_FILTER_LZMA2, &options}, {LZMA_VLI_UNKNOWN, nullptr}};
  Bytes out(data.size() + data.size() / 8 + 4096);
  size_t written = 0;
  REQUIRE(lzma_raw_buffer_encode(filters, nullptr, data.data(), data.size(), out.data(), &written, out.size()) == LZMA_OK);
  out.resize(written);
  return out;
}

// Everything the decoder gives for `compressed`, or its error message.
struct Decoded {
  Bytes bytes;
  std::string error;
};

Decoded decode(std::uint32_t dictionary, const Bytes& compressed) {
  Lzma2Decoder decoder(dictionary);
  decoder.start(compressed);
  Decoded decoded;
  while (true) {
    Result<std::span<const std::uint8_t>> piece = decoder.next();
    if (!piece) {
      decoded.error = piece.error().message;
      return decoded;
    }
    if (piece->empty()) break;
    decoded.bytes.insert(decoded.bytes.end(), piece->begin(), piece->end());
  }
  CHECK(decoder.consumed() == compressed.size());
  return decoded;
}

Bytes noise(size_t size, unsigned seed) {
  std::mt19937 random(seed);
  Bytes bytes(size);
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(random());
  return bytes;
}

// Text-like bytes with repeats near and far: literals, matches, overlapping and repeated
// distances, as real libraries give.
Bytes mixed(size_t size, unsigned seed) {
  std::mt19937 random(seed);
  Bytes bytes;
  bytes.reserve(size);
  while (bytes.size() < size) {
    switch (random() % 4) {
      case 0:
        for (int i = 0; i < 40; ++i) bytes.push_back(static_cast<std::uint8_t>('a' + random() % 26));
        break;
      case 1:
        bytes.insert(bytes.end(), 300, static_cast<std::uint8_t>(random()));  // a run: an overlapping match
        break;
      default:
        if (bytes.size() > 1000) {
          size_t from = bytes.size() - 1 - random() % std::min<size_t>(bytes.size() - 1, 1 << 22);
          size_t length = 2 + random() % 600;
          for (size_t i = 0; i < length; ++i) bytes.push_back(bytes[from + i]);
        }
    }
  }
  bytes.resize(size);
  return bytes;
}

}  // namespace

TEST_CASE("LZMA2: what liblzma encodes decodes to the same bytes, for every kind of chunk and setting") {
  std::vector<std::pair<std::string, Bytes>> inputs = {
      {"empty", {}},
      {"one byte", {42}},
      {"noise (stored chunks)", noise(300000, 1)},
      {"mixed", mixed(1 << 20, 2)},
      {"noise then mixed",
       [] {
         Bytes bytes = noise(200000, 3);
         Bytes more = mixed(400000, 4);
         bytes.insert(bytes.end(), more.begin(), more.end());
         return bytes;
       }()},
  };
  for (const auto& [name, data] : inputs) {
    for (std::uint32_t preset : {0u, 1u, 6u, 9u | LZMA_PRESET_EXTREME}) {
      INFO(name << ", preset " << (preset & LZMA_PRESET_LEVEL_MASK));
      Settings settings;
      settings.preset = preset;
      Bytes compressed = lzma2_of(data, settings);
      lzma_options_lzma options{};
      REQUIRE_FALSE(lzma_lzma_preset(&options, preset));
      Decoded decoded = decode(options.dict_size, compressed);
      CHECK(decoded.error.empty());
      CHECK(decoded.bytes == data);
    }
  }
  // Every literal and position setting LZMA2 allows (lc + lp <= 4, pb <= 4).
  Bytes data = mixed(200000, 5);
  for (std::uint32_t lc = 0; lc <= 4; ++lc) {
    for (std::uint32_t lp = 0; lc + lp <= 4; ++lp) {
      for (std::uint32_t pb = 0; pb <= 4; pb += 2) {
        INFO("lc " << lc << " lp " << lp << " pb " << pb);
        Settings settings{1, 0, lc, lp, pb};
        Decoded decoded = decode(1 << 20, lzma2_of(data, settings));
        CHECK(decoded.error.empty());
        CHECK(decoded.bytes == data);
      }
    }
  }
}

TEST_CASE("LZMA2: output larger than the ring wraps around it, matches across its end included") {
  // The smallest dictionary (4 KiB) gives the smallest ring: one chunk, 2 MiB.
  Bytes data = mixed(11 << 20, 6);
  Settings settings{6, 4096};
  Decoded decoded = decode(4096, lzma2_of(data, settings));
  CHECK(decoded.error.empty());
  CHECK(decoded.bytes == data);
}

TEST_CASE("LZMA2: data cut short, or bytes after the end marker, are errors") {
  Bytes compressed = lzma2_of(mixed(100000, 7), Settings{});
  for (size_t size : {size_t{0}, size_t{1}, size_t{5}, compressed.size() / 2, compressed.size() - 2, compressed.size() - 1}) {
    INFO("cut to " << size);
    Decoded decoded = decode(8 << 20, Bytes(compressed.begin(), compressed.begin() + static_cast<std::ptrdiff_t>(size)));
    CHECK_THAT(decoded.error, Catch::StartsWith("xz data is corrupt: "));
  }
  Bytes longer = compressed;
  longer.push_back(0);
  CHECK_THAT(decode(8 << 20, longer).error, Catch::Contains("bytes after its LZMA2 end marker"));
}

TEST_CASE("LZMA2: chunk headers the format forbids are refused") {
  auto error_of = [](Bytes compressed) { return decode(1 << 20, compressed).error; };
  // A stored chunk of one byte without the dictionary reset a stream starts with.
  CHECK_THAT(error_of({0x02, 0x00, 0x00, 'x', 0x00}), Catch::Contains("does not start with a dictionary reset"));
  CHECK_THAT(error_of({0x01, 0x00, 0x00, 'x', 0x03, 0x00, 0x00, 'x', 0x00}), Catch::Contains("invalid control byte"));
  // A dictionary reset, then an LZMA chunk that keeps properties it never got.
  CHECK_THAT(error_of({0x01, 0x00, 0x00, 'x', 0xA0, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 0, 0, 0x00}),
             Catch::Contains("lacks the properties"));
  CHECK_THAT(error_of({0xE0, 0x00, 0x00, 0x00, 0x04, 225, 0, 0, 0, 0, 0, 0x00}), Catch::Contains("invalid properties"));
  // lc 4, lp 1: (pb * 5 + lp) * 9 + lc.
  CHECK_THAT(error_of({0xE0, 0x00, 0x00, 0x00, 0x04, 13, 0, 0, 0, 0, 0, 0x00}), Catch::Contains("lc + lp > 4"));
  CHECK_THAT(error_of({0xE0, 0x00, 0x00}), Catch::Contains("header is cut short"));
  // An LZMA chunk whose range coder does not start with a zero byte.
  CHECK_THAT(error_of({0xE0, 0x00, 0x00, 0x00, 0x04, 0x5D, 1, 0, 0, 0, 0, 0x00}), Catch::Contains("range coder"));
  // Stored chunks alone are a valid stream.
  Decoded stored = decode(1 << 20, {0x01, 0x00, 0x01, 'h', 'i', 0x02, 0x00, 0x00, '!', 0x00});
  CHECK(stored.error.empty());
  CHECK(stored.bytes == Bytes{'h', 'i', '!'});
}

TEST_CASE("LZMA2: damaged data never reads or writes out of bounds and decodes as liblzma's decoder does") {
  // Every outcome is checked against liblzma's raw decoder: where both succeed the bytes agree,
  // and liblzma never accepts what this decoder refuses. (tests/fuzz/fuzz_lzma2.cpp does the same
  // with coverage guidance, under ASan.)
  Bytes original = lzma2_of(mixed(60000, 8), Settings{1});
  std::mt19937 random(9);
  int refused = 0;
  for (int round = 0; round < 400; ++round) {
    Bytes damaged = original;
    for (int flips = 1 + round % 3; flips > 0; --flips)
      damaged[random() % damaged.size()] ^= static_cast<std::uint8_t>(1 + random() % 255);
    Decoded mine = decode(1 << 20, damaged);
    lzma_options_lzma options{};
    options.dict_size = 1 << 20;
    lzma_filter filters[] = {{LZMA_FILTER_LZMA2, &options}, {LZMA_VLI_UNKNOWN, nullptr}};
    Bytes theirs(32 << 20);
    size_t in_pos = 0, out_pos = 0;
    lzma_ret status =
        lzma_raw_buffer_decode(filters, nullptr, damaged.data(), &in_pos, damaged.size(), theirs.data(), &out_pos, theirs.size());
    theirs.resize(out_pos);
    bool liblzma_accepts = status == LZMA_OK && in_pos == damaged.size();
    INFO("round " << round << ": " << mine.error << " / liblzma " << status);
    if (mine.error.empty()) {
      CHECK(liblzma_accepts);
      CHECK(mine.bytes == theirs);
    } else {
      CHECK_THAT(mine.error, Catch::StartsWith("xz data is corrupt: "));
      CHECK_FALSE(liblzma_accepts);
      ++refused;
    }
  }
  CHECK(refused > 300);
}

TEST_CASE("xz blocks: every block of every stream, from the index; other filter chains go to liblzma") {
  Bytes data = mixed(3 << 20, 10);
  auto xz_of = [&](lzma_filter* filters, std::uint64_t block_size) {
    lzma_stream stream = LZMA_STREAM_INIT;
    lzma_mt options{};
    options.threads = 1;
    options.block_size = block_size;
    options.filters = filters;
    options.check = LZMA_CHECK_CRC32;
    REQUIRE(lzma_stream_encoder_mt(&stream, &options) == LZMA_OK);
    Bytes out(lzma_stream_buffer_bound(data.size()));
    stream.next_in = data.data();
    stream.avail_in = data.size();
    stream.next_out = out.data();
    stream.avail_out = out.size();
    REQUIRE(lzma_code(&stream, LZMA_FINISH) == LZMA_STREAM_END);
    out.resize(out.size() - stream.avail_out);
    lzma_end(&stream);
    return out;
  };
  lzma_options_lzma options{};
  REQUIRE_FALSE(lzma_lzma_preset(&options, 1));
  lzma_filter plain[] = {{LZMA_FILTER_LZMA2, &options}, {LZMA_VLI_UNKNOWN, nullptr}};
  // Two streams with stream padding between them, as `xz -dc` reads them.
  Bytes file = xz_of(plain, 1 << 20);
  file.insert(file.end(), 8, 0);
  Bytes second = xz_of(plain, 0);
  file.insert(file.end(), second.begin(), second.end());
  Result<std::optional<std::vector<XzBlock>>> blocks = plain_lzma2_blocks(file);
  REQUIRE(blocks);
  REQUIRE(*blocks);
  CHECK((*blocks)->size() == 4);  // three of 1 MiB, then the second stream's one
  Bytes decoded;
  for (const XzBlock& block : **blocks) {
    CHECK(block.dictionary_size == options.dict_size);
    Decoded part =
        decode(block.dictionary_size, Bytes(file.begin() + static_cast<std::ptrdiff_t>(block.data_offset),
                                            file.begin() + static_cast<std::ptrdiff_t>(block.data_offset + block.data_size)));
    REQUIRE(part.error.empty());
    CHECK(part.bytes.size() == block.decoded_size);
    decoded.insert(decoded.end(), part.bytes.begin(), part.bytes.end());
  }
  Bytes twice = data;
  twice.insert(twice.end(), data.begin(), data.end());
  CHECK(decoded == twice);

  lzma_filter with_bcj[] = {{LZMA_FILTER_X86, nullptr}, {LZMA_FILTER_LZMA2, &options}, {LZMA_VLI_UNKNOWN, nullptr}};
  Result<std::optional<std::vector<XzBlock>>> other = plain_lzma2_blocks(xz_of(with_bcj, 0));
  REQUIRE(other);
  CHECK_FALSE(*other);

  Bytes cut(file.begin(), file.end() - 5);
  Result<std::optional<std::vector<XzBlock>>> refused = plain_lzma2_blocks(cut);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::Contains("xz data is corrupt: its index cannot be read"));
  // Padding that is not zeros: the first data size that leaves some.
  bool padding_seen = false;
  for (size_t size = 1000; size < 1010 && !padding_seen; ++size) {
    data = mixed(size, 11);
    Bytes padded = xz_of(plain, 0);
    XzBlock block = (*plain_lzma2_blocks(padded).value()).front();
    size_t end = block.data_offset + block.data_size;
    if (end % 4 == 0) continue;
    padding_seen = true;
    padded[end] = 1;
    Result<std::optional<std::vector<XzBlock>>> bad_padding = plain_lzma2_blocks(padded);
    REQUIRE_FALSE(bad_padding);
    CHECK_THAT(bad_padding.error().message, Catch::Contains("a block's padding is not zeros"));
  }
  CHECK(padding_seen);
}
