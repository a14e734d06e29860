#pragma once
// Deflate data for the tests of the inflating readers, written by zlib: another implementation
// than the readers' (ISA-L). `window_bits` as zlib takes them: -15 raw deflate (a zip member),
// 15 + 16 a gzip member.

#include <zlib.h>

#include <catch2/catch.hpp>
#include <string>

namespace cudaenv {

inline std::string deflated(const std::string& data, int window_bits = -15) {
  z_stream stream{};
  REQUIRE(deflateInit2(&stream, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&stream, data.size()) + 32, '\0');  // room for a gzip header and trailer
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&stream, Z_FINISH) == Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

}  // namespace cudaenv
