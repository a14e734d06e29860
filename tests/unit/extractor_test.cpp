#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

namespace {

namespace fs = std::filesystem;

struct TarMember {
  std::string path;
  mode_t type = AE_IFREG;
  std::string text;  // a file's data, a link's target
};

// Real tar files, written with libarchive as the redist archives are read with it.
void write_tar(const fs::path& file, const std::vector<TarMember>& members) {
  archive* out = archive_write_new();
  archive_write_set_format_gnutar(out);
  REQUIRE(archive_write_open_filename(out, file.c_str()) == ARCHIVE_OK);
  for (const TarMember& member : members) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, member.path.c_str());
    archive_entry_set_filetype(entry, member.type);
    archive_entry_set_perm(entry, member.type == AE_IFDIR ? 0755 : 0644);
    if (member.type == AE_IFLNK) archive_entry_set_symlink(entry, member.text.c_str());
    archive_entry_set_size(entry, member.type == AE_IFREG ? static_cast<la_int64_t>(member.text.size()) : 0);
    REQUIRE(archive_write_header(out, entry) == ARCHIVE_OK);
    if (member.type == AE_IFREG) archive_write_data(out, member.text.data(), member.text.size());
    archive_entry_free(entry);
  }
  archive_write_close(out);
  archive_write_free(out);
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Extracts the archives one after another into a fresh `staging`, in the given order, then
// makes their links, as the installer does once every archive is written.
Status extract_in_order(const fs::path& staging, const std::vector<std::pair<fs::path, std::string>>& archives) {
  fs::remove_all(staging);
  fs::create_directories(staging);
  fs::path previous = fs::current_path();
  fs::current_path(staging);
  std::vector<ArchiveSymlink> links;
  Status status = ok_status();
  for (const auto& [archive, component] : archives) {
    auto extracted = extract_archive(archive, component, nullptr, 1);
    if (!extracted) {
      status = extracted.take_error();
      break;
    }
    links.insert(links.end(), extracted->begin(), extracted->end());
  }
  fs::current_path(previous);
  if (!status) return status;
  return make_symlinks(staging, links);
}

}  // namespace

TEST_CASE("archives' links are made after every archive, and never over another archive's folder, in either order") {
  fs::path root = fs::temp_directory_path() / ("cudaenv-order-" + std::to_string(::getpid()));
  fs::create_directories(root);
  fs::path link = root / "link.tar", folder = root / "folder.tar", twin = root / "twin.tar", other = root / "other.tar";
  write_tar(link, {{"l/", AE_IFDIR, ""},
                   {"l/share", AE_IFLNK, "bin"},
                   {"l/lib/libx.so.1", AE_IFREG, "x\n"},
                   {"l/lib/libx.so", AE_IFLNK, "libx.so.1"}});
  write_tar(folder, {{"f/", AE_IFDIR, ""},
                     {"f/bin/nvcc", AE_IFREG, "nvcc\n"},
                     {"f/share/", AE_IFDIR, ""},
                     {"f/share/nvcc", AE_IFREG, "pwned\n"}});
  write_tar(twin, {{"t/", AE_IFDIR, ""}, {"t/lib/", AE_IFDIR, ""}, {"t/lib/libx.so", AE_IFLNK, "libx.so.1"}});
  write_tar(other, {{"o/", AE_IFDIR, ""}, {"o/lib/libx.so", AE_IFLNK, "liby.so"}});
  fs::path staging = root / "staging";

  SECTION("a link is not on disk before make_symlinks") {
    fs::create_directories(staging);
    fs::path previous = fs::current_path();
    fs::current_path(staging);
    auto links = extract_archive(link, "cuda_link", nullptr, 1);
    fs::current_path(previous);
    REQUIRE(links);
    CHECK(links->size() == 2);
    CHECK_FALSE(fs::exists(fs::symlink_status(staging / "share")));
    CHECK(fs::is_regular_file(staging / "lib" / "libx.so.1"));
  }
  SECTION("a link where another archive made a folder is refused, whichever is extracted first") {
    for (bool link_first : {true, false}) {
      std::vector<std::pair<fs::path, std::string>> order = {{link, "cuda_link"}, {folder, "cuda_folder"}};
      if (!link_first) std::swap(order[0], order[1]);
      Status made = extract_in_order(staging, order);
      REQUIRE_FALSE(made);
      CHECK_THAT(made.error().message, Catch::Contains("cuda_link: archive " + link.string() +
                                                       " is refused: member 'l/share' "
                                                       "is a symlink where an archive of the install has a folder"));
      CHECK(read_text(staging / "bin" / "nvcc") == "nvcc\n");
      CHECK(fs::is_directory(fs::symlink_status(staging / "share")));
    }
  }
  SECTION("one link shipped by two archives is fine; two different links of one name are refused, in either order") {
    for (bool twin_first : {true, false}) {
      std::vector<std::pair<fs::path, std::string>> order = {{twin, "cuda_twin"}, {link, "cuda_link"}};
      if (twin_first) std::swap(order[0], order[1]);
      REQUIRE(extract_in_order(staging, order));
      CHECK(fs::read_symlink(staging / "lib" / "libx.so") == "libx.so.1");
      CHECK(fs::is_symlink(staging / "share"));

      order = {{other, "cuda_other"}, {twin, "cuda_twin"}};
      if (twin_first) std::swap(order[0], order[1]);
      Status made = extract_in_order(staging, order);
      REQUIRE_FALSE(made);
      CHECK_THAT(made.error().message, Catch::Contains("cuda_twin: archive " + twin.string() +
                                                       " is refused: member 't/lib/libx.so' is a symlink to "
                                                       "'libx.so.1' where an archive of the install has a symlink to 'liby.so'"));
    }
  }
  fs::remove_all(root);
}

TEST_CASE("make_symlinks makes missing folders and never writes through a link it made") {
  fs::path root = fs::temp_directory_path() / ("cudaenv-make-links-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "bin");
  auto link = [](std::string path, std::string target) { return ArchiveSymlink{path, target, "cuda_x", "x.tar", "top/" + path}; };
  // Sorted by path: "share" is made first, then "share/nvcc" would land in bin/.
  Status made = make_symlinks(root, {link("share/nvcc", "../lib/evil"), link("share", "bin"), link("a/b/c", "../d")});
  REQUIRE_FALSE(made);
  CHECK_THAT(made.error().message,
             Catch::Contains("member 'top/share/nvcc' is a symlink below 'share', which is a symlink or a file"));
  CHECK(fs::read_symlink(root / "a" / "b" / "c") == "../d");
  CHECK(fs::is_empty(root / "bin"));
  fs::remove_all(root);
}
