#include <catch2/catch.hpp>

#include "install/extractor.h"

using namespace cudaenv;

TEST_CASE("archive members: the top folder is stripped") {
  CHECK(strip_top_folder("cuda_nvcc-linux-x86_64-12.1.105-archive/bin/nvcc") == "bin/nvcc");
  CHECK(strip_top_folder("./top/include/") == "include");
  CHECK(strip_top_folder("top/") == "");
  CHECK(strip_top_folder("top") == "");
}

TEST_CASE("archive members: absolute paths and '..' are unsafe") {
  CHECK(!unsafe_member_path("top/bin/nvcc"));
  CHECK(unsafe_member_path("/etc/passwd"));
  CHECK(unsafe_member_path("top/../../x"));
  CHECK(unsafe_member_path("top/bin/.."));
}

TEST_CASE("symlink targets must resolve inside the toolkit folder") {
  CHECK(!unsafe_symlink_target("lib/libcudart.so", "libcudart.so.12"));
  CHECK(!unsafe_symlink_target("lib/x", "../include/cuda.h"));
  CHECK(!unsafe_symlink_target("targets/x86_64-linux/lib", "../../lib"));
  CHECK(unsafe_symlink_target("lib/x", "../../etc"));         // above the toolkit root
  CHECK(unsafe_symlink_target("x", "/usr/lib"));               // absolute
  CHECK(unsafe_symlink_target("x", "here/.."));                // ".." after a descent may cross a link
  CHECK(unsafe_symlink_target("a/b", "../c/../../d"));
  CHECK(unsafe_symlink_target("x", ""));
}
