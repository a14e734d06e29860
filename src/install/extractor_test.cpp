#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <lzma.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
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
  std::string text;   // a file's data, a link's target
  bool hard = false;  // a hard link to `text`
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
    if (member.hard) archive_entry_set_hardlink(entry, member.text.c_str());
    bool data = member.type == AE_IFREG && !member.hard;
    archive_entry_set_size(entry, data ? static_cast<la_int64_t>(member.text.size()) : 0);
    REQUIRE(archive_write_header(out, entry) == ARCHIVE_OK);
    if (data) archive_write_data(out, member.text.data(), member.text.size());
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

using Archives = std::vector<std::pair<fs::path, std::string>>;

Result<std::vector<ArchiveLink>> extract_file(const fs::path& archive, const std::string& component, const fs::path& staging,
                                              StagedFiles& files) {
  auto source = FileSource::open(archive);
  if (!source) return source.take_error();
  CUDAENV_TRY_ASSIGN(auto unpacked, extract_archive(*source, archive, component, staging, files, nullptr));
  return unpacked.links;
}

// Extracts the archives one after another into a fresh `staging`, in the given order, then
// makes their links, as the installer does once every archive is written.
Status extract_in_order(const fs::path& staging, const Archives& archives, StagedFiles& files) {
  fs::remove_all(staging);
  fs::create_directories(staging);
  std::vector<ArchiveLink> links;
  Status status = ok_status();
  for (const auto& [archive, component] : archives) {
    auto extracted = extract_file(archive, component, staging, files);
    if (!extracted) {
      status = extracted.take_error();
      break;
    }
    links.insert(links.end(), extracted->begin(), extracted->end());
  }
  if (!status) return status;
  return make_links(staging, links);
}

Status extract_in_order(const fs::path& staging, const Archives& archives) {
  StagedFiles files;
  return extract_in_order(staging, archives, files);
}

// Every order of `archives` (two or three).
std::vector<Archives> orders(Archives archives) {
  std::vector<Archives> all;
  std::sort(archives.begin(), archives.end());
  do all.push_back(archives);
  while (std::next_permutation(archives.begin(), archives.end()));
  return all;
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
    fs::path elsewhere = fs::current_path();
    StagedFiles files;
    auto links = extract_file(link, "cuda_link", staging, files);
    CHECK(fs::current_path() == elsewhere);  // written below `staging`, not where the process is
    CHECK_FALSE(fs::exists(elsewhere / "lib" / "libx.so.1"));
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

TEST_CASE("make_links makes missing folders and never writes through a link it made") {
  fs::path root = fs::temp_directory_path() / ("cudaenv-make-links-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "bin");
  auto link = [](std::string path, std::string target) {
    return ArchiveLink{path, target, false, "cuda_x", "x.tar", "top/" + path};
  };
  // Sorted by path: "share" is made first, then "share/nvcc" would land in bin/.
  Status made = make_links(root, {link("share/nvcc", "../lib/evil"), link("share", "bin"), link("a/b/c", "../d")});
  REQUIRE_FALSE(made);
  CHECK_THAT(made.error().message,
             Catch::Contains("member 'top/share/nvcc' is a symlink below 'share', which is a symlink or a file"));
  CHECK(fs::read_symlink(root / "a" / "b" / "c") == "../d");
  CHECK(fs::is_empty(root / "bin"));
  fs::remove_all(root);
}

TEST_CASE("one file shipped by two archives: the component first by name keeps it, in every order") {
  fs::path root = fs::temp_directory_path() / ("cudaenv-overlap-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  fs::path a = root / "a.tar", b = root / "b.tar", c = root / "c.tar";
  write_tar(a, {{"a/", AE_IFDIR, ""}, {"a/include/x.h", AE_IFREG, "from a\n"}, {"a/include/same.h", AE_IFREG, "same\n"}});
  write_tar(b, {{"b/", AE_IFDIR, ""}, {"b/include/x.h", AE_IFREG, "from b, longer\n"}, {"b/include/same.h", AE_IFREG, "same\n"}});
  write_tar(c, {{"c/", AE_IFDIR, ""}, {"c/include/x.h", AE_IFREG, "from c\n"}});
  fs::path staging = root / "staging";
  for (const Archives& order : orders({{a, "cuda_a"}, {b, "cuda_b"}, {c, "cuda_c"}})) {
    StagedFiles files;
    REQUIRE(extract_in_order(staging, order, files));
    CHECK(read_text(staging / "include" / "x.h") == "from a\n");
    CHECK(read_text(staging / "include" / "same.h") == "same\n");
    // The same bytes are no overlap; x.h is one, whichever came first.
    std::vector<FileOverlap> found = files.overlaps();
    REQUIRE(found.size() == 1);
    CHECK(found[0].path == "include/x.h");
    CHECK(found[0].kept == "cuda_a");
    CHECK(found[0].others == std::vector<std::string>{"cuda_b", "cuda_c"});
    size_t entries = 0;
    for (const auto& entry : fs::directory_iterator(staging / "include")) {
      ++entries;
      CHECK_FALSE(entry.path().filename().string().starts_with(".cudaenv-overlap-"));
    }
    CHECK(entries == 2);
  }
  fs::remove_all(root);
}

TEST_CASE("hard links are made after every archive: to another archive's file in either order, never to a missing one") {
  fs::path root = fs::temp_directory_path() / ("cudaenv-hard-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  fs::path files_tar = root / "files.tar", links_tar = root / "links.tar", bad = root / "bad.tar", chain = root / "chain.tar";
  write_tar(files_tar, {{"f/", AE_IFDIR, ""}, {"f/lib/libx.so.1", AE_IFREG, "x\n"}});
  write_tar(links_tar, {{"l/", AE_IFDIR, ""}, {"l/bin/x", AE_IFREG, "l/lib/libx.so.1", true}});
  write_tar(bad, {{"b/", AE_IFDIR, ""}, {"b/bin/y", AE_IFREG, "b/lib/missing.so", true}});
  write_tar(chain, {{"c/", AE_IFDIR, ""},
                    {"c/lib/one", AE_IFREG, "1\n"},
                    {"c/lib/two", AE_IFREG, "c/lib/one", true},
                    {"c/lib/three", AE_IFREG, "c/lib/two", true}});
  fs::path staging = root / "staging";
  SECTION("to another archive's file") {
    for (const Archives& order : orders({{files_tar, "cuda_files"}, {links_tar, "cuda_links"}})) {
      REQUIRE(extract_in_order(staging, order));
      CHECK(fs::equivalent(staging / "bin" / "x", staging / "lib" / "libx.so.1"));
      CHECK(read_text(staging / "bin" / "x") == "x\n");
    }
  }
  SECTION("a root file's hard link is kept with it, below licenses/<component>/") {
    write_tar(files_tar,
              {{"f/", AE_IFDIR, ""}, {"f/LICENSE", AE_IFREG, "license\n"}, {"f/COPYING", AE_IFREG, "f/LICENSE", true}});
    REQUIRE(extract_in_order(staging, {{files_tar, "cuda_files"}}));
    CHECK(fs::equivalent(staging / "licenses" / "cuda_files" / "COPYING", staging / "licenses" / "cuda_files" / "LICENSE"));
  }
  SECTION("to a file no archive has") {
    Status made = extract_in_order(staging, {{files_tar, "cuda_files"}, {bad, "cuda_bad"}});
    REQUIRE_FALSE(made);
    CHECK_THAT(made.error().message, Catch::Contains("cuda_bad: archive " + bad.string() +
                                                     " is refused: member 'b/bin/y' is a hard link to 'lib/missing.so', "
                                                     "which no archive of the install has as a file"));
  }
  SECTION("to a hard link") {
    Status made = extract_in_order(staging, {{chain, "cuda_chain"}});
    REQUIRE_FALSE(made);
    CHECK_THAT(made.error().message,
               Catch::Contains("member 'c/lib/three' is a hard link to 'lib/two', which is a hard link itself"));
  }
  fs::remove_all(root);
}

TEST_CASE("an archive waiting for a file another archive writes lends its core meanwhile") {
  StagedFiles files;
  auto first = files.claim("include/x.h");
  REQUIRE(first);
  std::atomic<bool> lent{false}, taken_back{false}, claimed{false};
  CoreTurns turns{[] { return true; }, [&] { lent = true; }, [&] { return taken_back = true; }};
  std::thread second([&] {
    auto claim = files.claim("include/x.h", &turns);
    claimed = claim != nullptr;
  });
  for (int i = 0; i < 6000 && !lent; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(lent);
  CHECK_FALSE(taken_back);
  CHECK_FALSE(claimed);
  first.reset();
  second.join();
  CHECK(taken_back);
  CHECK(claimed);
  // A claim nobody holds takes no turn.
  lent = false;
  CHECK(files.claim("include/y.h", &turns));
  CHECK_FALSE(lent);
}

TEST_CASE("a member named like cudaenv's own overlap copies is refused") {
  fs::path root = fs::temp_directory_path() / ("cudaenv-reserved-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  fs::path tar = root / "r.tar";
  write_tar(tar, {{"r/", AE_IFDIR, ""}, {"r/include/.cudaenv-overlap-cuda_a-x.h", AE_IFREG, "x\n"}});
  Status made = extract_in_order(root / "staging", {{tar, "cuda_r"}});
  REQUIRE_FALSE(made);
  CHECK_THAT(made.error().message,
             Catch::Contains("has a name starting with '.cudaenv-overlap-', which cudaenv keeps for itself"));
  fs::remove_all(root);
}

namespace {

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

// Bytes xz cannot shrink, so that an archive is larger than what the reader maps at a time.
std::string noise(size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string text(size, '\0');
  for (char& c : text) c = static_cast<char>(random());
  return text;
}

void write_bytes(const fs::path& file, const std::string& bytes) { std::ofstream(file, std::ios::binary) << bytes; }

}  // namespace

TEST_CASE(".tar.xz: single- and multi-block archives extract alike") {
  fs::path root = fs::temp_directory_path() / ("cudaenv-xz-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  std::string big = noise(9 << 20, 1);
  write_tar(root / "t.tar",
            {{"t/", AE_IFDIR, ""}, {"t/lib/libbig.so", AE_IFREG, big}, {"t/include/small.h", AE_IFREG, "#pragma once\n"}});
  for (std::uint64_t block_size : {std::uint64_t{0}, std::uint64_t{1} << 20}) {
    fs::path archive = root / ("blocks-" + std::to_string(block_size) + ".tar.xz");
    write_bytes(archive, xz_of(read_text(root / "t.tar"), block_size));
    INFO("block size " << block_size);
    StagedFiles files;
    REQUIRE(extract_in_order(root / "staging", {{archive, "cuda_t"}}, files));
    CHECK(read_text(root / "staging" / "lib" / "libbig.so") == big);
    CHECK(read_text(root / "staging" / "include" / "small.h") == "#pragma once\n");
  }
  fs::remove_all(root);
}

TEST_CASE(".tar.xz: a truncated, corrupt or extended archive is refused") {
  fs::path root = fs::temp_directory_path() / ("cudaenv-xz-bad-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  write_tar(root / "t.tar", {{"t/", AE_IFDIR, ""}, {"t/lib/a.so", AE_IFREG, noise(6 << 20, 2)}});
  std::string xz = xz_of(read_text(root / "t.tar"), 1 << 20);
  std::string footer = xz, data = xz;
  footer.back() ^= 0x55;
  // A byte of the noise, which LZMA2 stores as it is: only the block's CRC64 can tell.
  data[data.size() / 2] ^= 0x01;
  for (const auto& [name, bytes, why] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"truncated", xz.substr(0, xz.size() * 3 / 4), "the file is cut short"},
           {"footer", footer, "its xz data is corrupt"},
           {"data", data, "an integrity check (CRC32, CRC64 or SHA-256)"},
           {"trailing", xz + "garbage", "it has data after its xz stream that is no xz stream"},
           {"padded", xz + std::string(8, '\0'), ""}}) {
    fs::path archive = root / (name + ".tar.xz");
    write_bytes(archive, bytes);
    INFO(name);
    StagedFiles files;
    Status made = extract_in_order(root / "staging", {{archive, "cuda_t"}}, files);
    if (why.empty()) {  // stream padding, as xz reads it
      CHECK(made);
      continue;
    }
    REQUIRE_FALSE(made);
    CHECK_THAT(made.error().message,
               Catch::Contains("cuda_t: archive " + archive.string() + " is refused: ") && Catch::Contains(why));
    CHECK_THAT(made.error().hint, Catch::Contains("the archive is damaged or hostile"));
  }
  fs::remove_all(root);
}

namespace {

// The child's outcome: 0 extracted alike, 1 the extraction failed, 2 the bytes differ, 3 the
// archive could be mapped after all (the test would prove nothing).
int extract_without_address_space(const fs::path& root, const fs::path& archive, const std::string& big) {
  // What the process maps now, and 6 MiB more: less than the 9 MiB archive.
  std::ifstream statm("/proc/self/statm");
  unsigned long pages = 0;
  statm >> pages;
  rlim_t limit = pages * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (6 << 20);
  struct rlimit space = {limit, limit};
  if (::setrlimit(RLIMIT_AS, &space) != 0) return 1;
  int fd = ::open(archive.c_str(), O_RDONLY);
  void* mapped = ::mmap(nullptr, fs::file_size(archive), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapped != MAP_FAILED) return 3;
  StagedFiles files;
  if (!extract_in_order(root / "staging", {{archive, "cuda_t"}}, files)) return 1;
  std::ifstream in(root / "staging" / "lib" / "libbig.so", std::ios::binary);
  std::vector<char> chunk(1 << 16);
  size_t offset = 0;
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    size_t got = static_cast<size_t>(in.gcount());
    if (big.compare(offset, got, chunk.data(), got) != 0) return 2;
    offset += got;
  }
  return offset == big.size() ? 0 : 2;
}

}  // namespace

TEST_CASE(".tar.xz: an archive that cannot be mapped is read in pieces instead") {
  fs::path root = fs::temp_directory_path() / ("cudaenv-xz-unmapped-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  std::string big = noise(9 << 20, 3);
  write_tar(root / "t.tar", {{"t/", AE_IFDIR, ""}, {"t/lib/libbig.so", AE_IFREG, big}});
  fs::path archive = root / "t.tar.xz";
  write_bytes(archive, xz_of(read_text(root / "t.tar"), 0));
  fs::remove(root / "t.tar");
  // In a child, since the address space limit stays with the process.
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) ::_exit(extract_without_address_space(root, archive, big));
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  fs::remove_all(root);
}
