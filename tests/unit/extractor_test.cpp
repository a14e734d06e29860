#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>

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
  CHECK(unsafe_symlink_target("lib/x", "../../etc"));  // above the toolkit root
  CHECK(unsafe_symlink_target("x", "/usr/lib"));       // absolute
  CHECK(unsafe_symlink_target("x", "here/.."));        // ".." after a descent may cross a link
  CHECK(unsafe_symlink_target("a/b", "../c/../../d"));
  CHECK(unsafe_symlink_target("x", ""));
}

TEST_CASE("a symlink may not stand where archives merge a folder") {
  for (const char* path : {"lib", "lib64", "bin", "include", "nvvm", "targets", "targets/x86_64-linux/lib", "nvvm/lib64"}) {
    CHECK(is_merged_folder_name(path));
  }
  CHECK_FALSE(is_merged_folder_name("lib/libcudart.so"));
  CHECK_FALSE(is_merged_folder_name("library"));
  CHECK_FALSE(is_merged_folder_name(""));
}

TEST_CASE("check_links_inside follows chains of links and refuses any that leaves the folder") {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("cudaenv-links-" + std::to_string(::getpid()));
  fs::create_directories(root / "lib" / "deep");
  fs::create_symlink("libcudart.so.12", root / "lib" / "libcudart.so");  // dangling but inside
  fs::create_symlink("..", root / "lib" / "up");                         // the root itself
  fs::create_symlink("../up", root / "lib" / "deep" / "chain");          // -> lib/up -> root
  CHECK(check_links_inside(root));
  // Each link alone looks harmless; together they climb out.
  fs::create_symlink("../up/..", root / "lib" / "deep" / "out");
  auto checked = check_links_inside(root);
  REQUIRE_FALSE(checked);
  CHECK_THAT(checked.error().message, Catch::Contains("lib/deep/out -> ../up/.. resolves to"));
  CHECK_THAT(checked.error().message, Catch::Contains("outside the toolkit folder"));
  fs::remove_all(root);
}
