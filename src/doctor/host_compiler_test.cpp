// The host compiler's verdict: host_config.h's bounds, and the errors `use`, `exec` and doctor give.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "doctor/host_compiler.h"
#include "support/memory_file_system.h"

using namespace cudaenv;
using testing::MemoryFileSystem;

namespace {

HostCompiler compiler(const char* named, const char* kind, const char* version, bool with_cxx = true) {
  HostCompiler found;
  found.named = named;
  found.path = std::string("/usr/bin/") + named;
  found.cxx = "g++";
  if (with_cxx) found.cxx_path = "/usr/bin/g++";
  found.kind = kind;
  found.version = parse_version(version);
  return found;
}

HostCompilerLimits limits(int gcc, int clang) { return HostCompilerLimits{gcc, clang, "/t/include/crt/host_config.h"}; }

std::string error_of(const Status& status) { return status ? "" : status.error().message + " | " + status.error().hint; }

}  // namespace

TEST_CASE("host compiler: the bounds of crt/host_config.h's #error lines") {
  const char* header = R"(
#if defined(__GNUC__)
#if __GNUC__ > 11
#error -- unsupported GNU version! gcc versions later than 11 are not supported! The nvcc flag ...
#endif
#if defined(__HORIZON__)
#error -- unsupported HOS clang version! The version must be must be less than 21 and greater than 3.2 .
#endif
#if (__clang_major__ >= 15) || (__clang_major__ < 3)
#error -- unsupported clang version! clang version must be less than 15 and greater than 3.2 . The nvcc flag ...
#endif
#endif
)";
  HostCompilerLimits read = parse_host_config(header);
  CHECK(read.gcc_max == 11);
  CHECK(read.clang_max == 14);  // "less than 15"; the HOS clang's line is another compiler's
  CHECK_FALSE(parse_host_config("// gcc versions later than 9 are not supported\n").gcc_max);  // not an #error
}

TEST_CASE("host compiler: the real CUDA 13.0 header (where this machine has it)") {
  std::ifstream in("/usr/local/cuda-13.0/include/crt/host_config.h");
  if (!in) {
    WARN("/usr/local/cuda-13.0 is not here: the real header is not read");
    return;
  }
  std::stringstream text;
  text << in.rdbuf();
  HostCompilerLimits read = parse_host_config(text.str());
  CHECK(read.gcc_max == 15);
  CHECK(read.clang_max == 20);
}

TEST_CASE("host compiler: read from include/ or targets/*/include/ of a toolkit") {
  MemoryFileSystem fs;
  fs.file("/t/targets/x86_64-linux/include/crt/host_config.h",
          "#error -- unsupported GNU version! gcc versions later than 13 are not supported!\n");
  auto read = read_host_config(fs, "/t");
  REQUIRE(read);
  CHECK(read->gcc_max == 13);
  CHECK(read->source == "/t/targets/x86_64-linux/include/crt/host_config.h");
  CHECK_FALSE(read_host_config(fs, "/elsewhere"));
}

TEST_CASE("host compiler: the verdict names the compiler, the newest the toolkit takes, and the fix") {
  CHECK(check_host_compiler(compiler("gcc-12", "gcc", "12.2.0"), limits(15, 20), "13.0", {12}));
  CHECK(error_of(check_host_compiler(compiler("gcc-16", "gcc", "16.1.0"), limits(15, 20), "13.0", {12, 16})) ==
        "CUDA 13.0's nvcc does not accept gcc-16 (gcc 16.1.0): it takes gcc up to 15 (/t/include/crt/host_config.h) | "
        "cudaenv use --host-compiler gcc-12");
  // No gcc-N it takes on PATH: the package that provides the newest one.
  CHECK(error_of(check_host_compiler(compiler("gcc-16", "gcc", "16.1.0"), limits(15, 20), "13.0", {16})) ==
        "CUDA 13.0's nvcc does not accept gcc-16 (gcc 16.1.0): it takes gcc up to 15 (/t/include/crt/host_config.h) | "
        "sudo apt install gcc-15 g++-15 && cudaenv use --host-compiler gcc-15");
  HostCompiler missing = compiler("gcc-99", "unknown", "");
  missing.path.reset();
  CHECK(error_of(check_host_compiler(missing, limits(15, 20), "13.0", {12})) ==
        "host compiler gcc-99 is not on PATH; the newest gcc CUDA 13.0 accepts is gcc 15 | install it, or cudaenv use "
        "--host-compiler gcc-12");
  CHECK(error_of(check_host_compiler(compiler("gcc-11", "gcc", "11.4.0", false), limits(15, 20), "13.0", {11})) ==
        "host compiler gcc-11 has no C++ driver g++ on PATH beside it; the newest gcc CUDA 13.0 accepts is gcc 15 | install "
        "the C++ compiler too (sudo apt install g++-11), or cudaenv use --host-compiler gcc-11");
  CHECK_FALSE(check_host_compiler(compiler("clang-21", "clang", "21.1.0"), limits(15, 20), "13.0", {}));
  // Without a known bound (no header, no facts), only its presence is checked.
  CHECK(check_host_compiler(compiler("gcc-30", "gcc", "30.0.0"), HostCompilerLimits{}, "14.0", {}));
}
