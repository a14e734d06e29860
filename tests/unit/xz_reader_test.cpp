#include <archive.h>
#include <archive_entry.h>
#include <lzma.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include "install/xz_reader.h"

using namespace cudaenv;

namespace {

namespace fs = std::filesystem;

// A tar of `files`, in memory.
std::string tar_of(const std::map<std::string, std::string>& files) {
  std::string tar(1 << 20, '\0');
  size_t used = 0;
  archive* out = archive_write_new();
  archive_write_set_format_gnutar(out);
  for (const auto& [path, text] : files) tar.resize(tar.size() + text.size() + 1024);
  REQUIRE(archive_write_open_memory(out, tar.data(), tar.size(), &used) == ARCHIVE_OK);
  for (const auto& [path, text] : files) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, path.c_str());
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, 0644);
    archive_entry_set_size(entry, static_cast<la_int64_t>(text.size()));
    REQUIRE(archive_write_header(out, entry) == ARCHIVE_OK);
    REQUIRE(archive_write_data(out, text.data(), text.size()) == static_cast<la_ssize_t>(text.size()));
    archive_entry_free(entry);
  }
  archive_write_close(out);
  archive_write_free(out);
  tar.resize(used);
  return tar;
}

// `data` as xz writes it: in blocks of `block_size` (as `xz -T` does), or one block (0).
std::string xz_of(const std::string& data, std::uint64_t block_size) {
  lzma_stream stream = LZMA_STREAM_INIT;
  lzma_mt options{};
  options.threads = 2;
  options.block_size = block_size;
  options.preset = 0;
  options.check = LZMA_CHECK_CRC64;
  REQUIRE((block_size ? lzma_stream_encoder_mt(&stream, &options) : lzma_easy_encoder(&stream, 0, LZMA_CHECK_CRC64)) == LZMA_OK);
  std::string out(lzma_stream_buffer_bound(data.size()), '\0');
  stream.next_in = reinterpret_cast<const std::uint8_t*>(data.data());
  stream.avail_in = data.size();
  stream.next_out = reinterpret_cast<std::uint8_t*>(out.data());
  stream.avail_out = out.size();
  REQUIRE(lzma_code(&stream, LZMA_FINISH) == LZMA_STREAM_END);
  out.resize(out.size() - stream.avail_out);
  lzma_end(&stream);
  return out;
}

// Bytes xz cannot shrink, so that the archive is larger than what the reader maps at a time.
std::string noise(size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string text(size, '\0');
  for (char& c : text) c = static_cast<char>(random());
  return text;
}

fs::path write_file(const std::string& name, const std::string& bytes) {
  fs::path file = fs::temp_directory_path() / ("cudaenv-xz-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(file, std::ios::binary) << bytes;
  return file;
}

// What libarchive reads through XzReader: each member's data, or the error.
Result<std::map<std::string, std::string>> read_through(const fs::path& file, unsigned threads) {
  archive* in = archive_read_new();
  archive_read_support_format_tar(in);
  XzReader reader;
  std::map<std::string, std::string> files;
  Status opened = reader.open(in, file, threads);
  if (!opened) {
    archive_read_free(in);
    return opened.take_error();
  }
  archive_entry* entry = nullptr;
  int status = ARCHIVE_OK;
  while ((status = archive_read_next_header(in, &entry)) == ARCHIVE_OK) {
    std::string& text = files[archive_entry_pathname(entry)];
    char buffer[8192];
    la_ssize_t got = 0;
    while ((got = archive_read_data(in, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(got));
    if (got < 0) {
      status = ARCHIVE_FATAL;
      break;
    }
  }
  std::string message = status == ARCHIVE_EOF ? "" : archive_error_string(in) ? archive_error_string(in) : "no message";
  archive_read_free(in);
  if (!message.empty()) return make_error(message);
  return files;
}

}  // namespace

TEST_CASE("xz reader: the plain and the threaded decoder read single- and multi-block archives alike") {
  std::map<std::string, std::string> files = {
      {"top/lib/libbig.so", noise(9 << 20, 1)}, {"top/include/small.h", "#pragma once\n"}, {"top/empty", ""}};
  std::string tar = tar_of(files);
  for (std::uint64_t block_size : {std::uint64_t{0}, std::uint64_t{1} << 20}) {
    fs::path file = write_file("blocks-" + std::to_string(block_size) + ".tar.xz", xz_of(tar, block_size));
    CHECK(is_xz_file(file));
    for (unsigned threads : {1u, 2u, 4u}) {
      INFO("block size " << block_size << ", " << threads << " threads");
      auto read = read_through(file, threads);
      REQUIRE(read);
      CHECK(*read == files);
    }
    fs::remove(file);
  }
}

TEST_CASE("xz reader: a truncated or corrupt archive is an error, with either decoder") {
  std::string xz = xz_of(tar_of({{"top/a", noise(6 << 20, 2)}}), 1 << 20);
  // The footer's magic: a flipped byte of the data itself may pass, as the CRC64 is not checked
  // (the archive's sha256 was).
  std::string corrupt = xz;
  corrupt.back() ^= 0x55;
  for (const auto& [name, bytes] :
       {std::pair<std::string, std::string>{"truncated", xz.substr(0, xz.size() * 3 / 4)}, {"corrupt", corrupt}}) {
    fs::path file = write_file(name + ".tar.xz", bytes);
    for (unsigned threads : {1u, 2u}) {
      INFO(name << ", " << threads << " threads");
      auto read = read_through(file, threads);
      REQUIRE_FALSE(read);
      CHECK_THAT(read.error().message, Catch::Contains("xz data is corrupt or truncated") || Catch::Contains("Truncated"));
    }
    fs::remove(file);
  }
}

TEST_CASE("xz reader: an empty or missing file is an error naming it") {
  fs::path empty = write_file("empty.tar.xz", "");
  CHECK_FALSE(is_xz_file(empty));
  auto read = read_through(empty, 1);
  CHECK_FALSE(read);
  fs::remove(empty);
  auto missing = read_through(empty, 1);
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message, Catch::Contains("cannot open " + empty.string()));
}
