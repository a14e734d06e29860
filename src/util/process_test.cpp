#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>
#include <string>

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

TEST_CASE("process: a failed exec is not found (127) or not runnable (126), naming the program") {
  Error missing = exec_failure("/opt/x/nvcc", ENOENT);
  CHECK(missing.kind == ErrorKind::program_not_found);
  CHECK(missing.message == "cannot run /opt/x/nvcc: " + std::string(std::strerror(ENOENT)));
  CHECK(exec_failure("/opt/x/nvcc", EACCES).kind == ErrorKind::program_not_runnable);
  CHECK(exec_failure("/opt/x/nvcc", ENOEXEC).kind == ErrorKind::program_not_runnable);
}
