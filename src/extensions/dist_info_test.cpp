#include "extensions/dist_info.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "extensions/ld_cache.h"
#include "support/memory_file_system.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

TEST_CASE("what a version's local part says an extension was built for") {
  CHECK(torch_in_version("2.8.3+cu12torch2.4cxx11abiTRUE") == "2.4");
  CHECK(cuda_in_version("2.8.3+cu12torch2.4cxx11abiTRUE") == "12");
  CHECK(cuda_in_version("0.0.29.post1+cu124") == "12.4");
  CHECK(cuda_in_version("2.15.0+cu130") == "13.0");
  CHECK(torch_in_version("2.15.0+cu130") == std::nullopt);
  CHECK(torch_in_version("1.0+torch2") == std::nullopt);
  CHECK(cuda_in_version("1.0") == std::nullopt);
  CHECK(cuda_in_version("1.0+cpu") == std::nullopt);
}

TEST_CASE("read_installed_files and read_distribution: RECORD's files, METADATA's name, version and torch pin") {
  MemoryFileSystem fs;
  fs.file("/site/flash_attn-2.8.3.dist-info/RECORD",
          "flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so,sha256=abc,123\n\"flash_attn/a,b.py\",,\n"
          "flash_attn-2.8.3.dist-info/METADATA,,\n");
  fs.file("/site/flash_attn-2.8.3.dist-info/METADATA",
          "Metadata-Version: 2.1\nName: flash_attn\nVersion: 2.8.3\nRequires-Dist: torchvision\n"
          "Requires-Dist: torch (==2.4.1)\n\nRequires-Dist: torch==9.9 in the body\n");
  fs.file("/site/broken-1.dist-info/METADATA", "no name here\n");
  InstalledFiles files = read_installed_files(fs, "/site");
  REQUIRE(files.dist_infos.size() == 1);
  CHECK(files.owner.count("flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so") == 1);
  CHECK(files.owner.count("flash_attn/a,b.py") == 1);
  auto distribution = read_distribution(fs, "/site/flash_attn-2.8.3.dist-info");
  REQUIRE(distribution);
  CHECK(distribution->name == "flash_attn");
  CHECK(distribution->version == "2.8.3");
  CHECK(distribution->requires_torch == "2.4.1");
  CHECK_FALSE(read_distribution(fs, "/site/broken-1.dist-info"));
}

namespace {

// An ld.so.cache in glibc's new format with (soname, path) entries.
std::vector<unsigned char> ld_cache(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::vector<unsigned char> bytes(48 + 24 * entries.size());
  std::memcpy(bytes.data(), "glibc-ld.so.cache1.1", 20);
  std::uint32_t count = static_cast<std::uint32_t>(entries.size());
  std::memcpy(bytes.data() + 20, &count, 4);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::uint32_t key = static_cast<std::uint32_t>(bytes.size());
    bytes.insert(bytes.end(), entries[i].first.begin(), entries[i].first.end());
    bytes.push_back(0);
    std::uint32_t value = static_cast<std::uint32_t>(bytes.size());
    bytes.insert(bytes.end(), entries[i].second.begin(), entries[i].second.end());
    bytes.push_back(0);
    std::int32_t flags = 0x0303;
    std::memcpy(bytes.data() + 48 + 24 * i, &flags, 4);
    std::memcpy(bytes.data() + 48 + 24 * i + 4, &key, 4);
    std::memcpy(bytes.data() + 48 + 24 * i + 8, &value, 4);
  }
  return bytes;
}

}  // namespace

TEST_CASE("parse_ld_cache reads glibc's cache and refuses every truncation of it") {
  auto bytes =
      ld_cache({{"libnvrtc.so.13", "/usr/local/cuda-13.0/lib/libnvrtc.so.13"}, {"libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"}});
  auto cache = parse_ld_cache(bytes, "ld.so.cache");
  REQUIRE(cache);
  REQUIRE(cache->size() == 2);
  CHECK((*cache)[0].first == "libnvrtc.so.13");
  CHECK((*cache)[0].second == "/usr/local/cuda-13.0/lib/libnvrtc.so.13");
  for (std::size_t size = 0; size < 96; ++size) {
    std::vector<unsigned char> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
    CHECK_FALSE(parse_ld_cache(cut, "ld.so.cache"));
  }
  // Past the entries, cut strings are dropped, never read beyond the end.
  std::vector<unsigned char> cut(bytes.begin(), bytes.end() - 5);
  auto partial = parse_ld_cache(cut, "ld.so.cache");
  REQUIRE(partial);
  CHECK(partial->size() == 1);
  auto wrong = parse_ld_cache(std::vector<unsigned char>(64, 'x'), "/etc/ld.so.cache");
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().message == "/etc/ld.so.cache: not a glibc ld.so.cache (no glibc-ld.so.cache1.1)");
}
