#include <catch2/catch.hpp>

#include "store/rehash.h"
#include "support/memory_file_system.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

TEST_CASE("rehash shims CUDA's programs and never the system's, even from a toolkit folder like /usr") {
  MemoryFileSystem fs;
  const Layout layout{"/home/u/.cudaenv", std::nullopt};
  // /usr registered as a toolkit (a distribution's nvcc in /usr/bin).
  for (const char* program : {"nvcc", "ptxas", "cuda-gdb", "nsight-sys", "ls", "git", "bash", "python3"}) {
    fs.file(std::string("/usr/bin/") + program, "", true);
  }
  fs.symlink("/home/u/.cudaenv/versions/12.0", "/usr");
  fs.file("/bin/sh", "", true);
  // An installed toolkit whose archives also brought a program the system has.
  for (const char* program : {"nvcc", "my-helper", "sh", "bin2c"}) {
    fs.file(std::string("/home/u/.cudaenv/versions/12.4.1/bin/") + program, "", true);
  }
  fs.file("/home/u/.cudaenv/versions/12.4.1/bin/nvcc.profile", "");
  CHECK(shim_names(fs, layout) == std::vector<std::string>{"bin2c", "cuda-gdb", "my-helper", "nsight-sys", "nvcc", "ptxas"});
}
