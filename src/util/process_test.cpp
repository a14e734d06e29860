#include <catch2/catch.hpp>

#include "support/memory_file_system.h"
#include "util/process.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

TEST_CASE("memory_available: MemAvailable of /proc/meminfo under the machine's root, in bytes") {
  MemoryFileSystem fs;
  fs.file("/m/proc/meminfo", "MemTotal:       24576000 kB\nMemAvailable:   16384000 kB\n");
  CHECK(memory_available(fs, "/m") == std::uint64_t{16384000} * 1024);
  CHECK_FALSE(memory_available(fs, "/elsewhere"));
  fs.file("/bad/proc/meminfo", "MemAvailable:   lots kB\n");
  CHECK_FALSE(memory_available(fs, "/bad"));
  fs.file("/unit/proc/meminfo", "MemAvailable:   1024 MB\n");
  CHECK_FALSE(memory_available(fs, "/unit"));
  fs.file("/huge/proc/meminfo", "MemAvailable:   99999999999999999999 kB\n");
  CHECK_FALSE(memory_available(fs, "/huge"));
}
