#include "install/blocks_ahead.h"

#include <lzma.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <random>
#include <thread>

using namespace cudaenv;

namespace {

using Bytes = std::vector<std::uint8_t>;

// Compressible bytes in xz blocks of 128 KiB, as xz -T writes them.
struct MultiBlock {
  Bytes data;
  Bytes file;
  std::vector<XzBlock> blocks;
};

MultiBlock multi_block(size_t size) {
  MultiBlock made;
  std::mt19937 random(3);
  for (size_t i = 0; i < size; ++i) made.data.push_back(static_cast<std::uint8_t>('a' + random() % 7));
  lzma_stream stream = LZMA_STREAM_INIT;
  lzma_mt options{};
  options.threads = 1;
  options.block_size = 128 << 10;
  options.preset = 1;
  options.check = LZMA_CHECK_CRC64;
  REQUIRE(lzma_stream_encoder_mt(&stream, &options) == LZMA_OK);
  made.file.resize(lzma_stream_buffer_bound(size));
  stream.next_in = made.data.data();
  stream.avail_in = made.data.size();
  stream.next_out = made.file.data();
  stream.avail_out = made.file.size();
  REQUIRE(lzma_code(&stream, LZMA_FINISH) == LZMA_STREAM_END);
  made.file.resize(made.file.size() - stream.avail_out);
  lzma_end(&stream);
  auto blocks = plain_lzma2_blocks(made.file);
  REQUIRE(blocks);
  REQUIRE(*blocks);
  made.blocks = **blocks;
  return made;
}

// Waits (without a deadline that a loaded machine could miss) until `done` holds.
template <class Condition>
void wait_until(Condition done) {
  while (!done()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// What the reader does: each block from a helper, or decoded by itself; the error, if any.
struct Read {
  Bytes bytes;
  size_t from_helpers = 0;
  std::string error;
};

Read read_all(BlocksAhead& ahead, const MultiBlock& made) {
  Read read;
  Lzma2Decoder decoder(made.blocks.front().dictionary_size);
  for (size_t index = 0; index < made.blocks.size() && read.error.empty(); ++index) {
    if (auto decoded = ahead.take(index)) {
      if (!*decoded) {
        read.error = decoded->error().message;
        break;
      }
      read.bytes.insert(read.bytes.end(), (*decoded)->begin(), (*decoded)->end());
      ++read.from_helpers;
      continue;
    }
    const XzBlock& block = made.blocks[index];
    decoder.start(std::span(made.file).subspan(block.data_offset, block.data_size));
    std::uint64_t decoded = 0;
    while (true) {
      auto piece = next_piece(decoder, block, decoded);
      if (!piece) {
        read.error = piece.error().message;
        break;
      }
      if (piece->empty()) break;
      read.bytes.insert(read.bytes.end(), piece->begin(), piece->end());
    }
  }
  return read;
}

}  // namespace

TEST_CASE("blocks ahead: a helper decodes blocks ahead of the reader, which reads them all in order") {
  MultiBlock made = multi_block(3 << 20);
  REQUIRE(made.blocks.size() == 24);
  BlocksAhead ahead(made.file, made.blocks, 2);
  std::thread helper([&] { ahead.help(); });
  wait_until([&] { return ahead.claimed() >= 2; });  // the helper has the first two
  Read read = read_all(ahead, made);
  ahead.stop();
  helper.join();
  CHECK(read.error.empty());
  CHECK(read.bytes == made.data);
  CHECK(read.from_helpers >= 2);
  CHECK(ahead.claimed() == made.blocks.size());
}

TEST_CASE("blocks ahead: stop returns once a waiting helper is gone, and a late helper takes nothing") {
  MultiBlock made = multi_block(1 << 20);
  BlocksAhead ahead(made.file, made.blocks, 1);
  std::thread helper([&] { ahead.help(); });
  wait_until([&] { return ahead.claimed() == 1; });  // it decodes block 0, then waits for room
  ahead.stop();
  helper.join();
  ahead.help();
  CHECK(ahead.claimed() == 1);
}

TEST_CASE("blocks ahead: a helper's error reaches the reader at that block") {
  MultiBlock made = multi_block(1 << 20);
  std::vector<XzBlock> cut = made.blocks;
  cut[0].data_size -= 1;  // its end marker missing
  BlocksAhead ahead(made.file, cut, 2);
  std::thread helper([&] { ahead.help(); });
  wait_until([&] { return ahead.claimed() >= 1; });
  std::optional<Result<Bytes>> first = ahead.take(0);
  ahead.stop();
  helper.join();
  REQUIRE(first);
  REQUIRE_FALSE(*first);
  CHECK_THAT(first->error().message, Catch::Contains("xz data is corrupt: LZMA2 data ends before its end marker"));
}

TEST_CASE("blocks ahead: blocks too large to hold in memory are left to the reader") {
  XzBlock huge;
  huge.decoded_size = BlocksAhead::kMostBlockBytes + 1;
  huge.dictionary_size = 1 << 20;
  BlocksAhead ahead({}, {huge, huge}, 2);
  ahead.help();
  CHECK(ahead.claimed() == 0);
  CHECK_FALSE(ahead.take(0));
}
