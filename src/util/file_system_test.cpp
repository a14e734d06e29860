// The one bounded reader, the one atomic writer and the file lock, on the real disk: what a hostile
// repository can put where cudaenv reads or writes, and two writers at once.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>

#include "util/file_compare.h"
#include "util/file_system.h"

using namespace cudaenv;

namespace {

struct TempDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("cudaenv-io-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
};

std::string text_of(const std::filesystem::path& path) { return RealFileSystem().read_file(path).value(); }

}  // namespace

TEST_CASE("read_file refuses what is not a small regular file, naming it") {
  TempDir dir;
  RealFileSystem disk;
  auto fifo = dir.path / "fifo.toml";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  auto read = disk.read_file(fifo);  // returns at once: no writer is waited for
  REQUIRE_FALSE(read);
  CHECK(read.error().message == "cannot read " + fifo.string() + ": it is a FIFO, not a regular file");

  auto zero = dir.path / "zero.toml";
  std::filesystem::create_symlink("/dev/zero", zero);
  read = disk.read_file(zero);
  REQUIRE_FALSE(read);
  CHECK_THAT(read.error().message, Catch::Contains("it is a device, not a regular file"));

  // A regular file that claims size 0 and never ends: read only up to the limit.
  auto pagemap = dir.path / "pagemap.toml";
  std::filesystem::create_symlink("/proc/self/pagemap", pagemap);
  read = disk.read_file(pagemap);
  REQUIRE_FALSE(read);
  CHECK_THAT(read.error().message, Catch::Contains("larger than 1 MiB"));

  auto big = dir.path / "big.toml";
  REQUIRE(write_file_atomically(big, std::string(2 << 20, '#')));
  read = disk.read_file(big);
  REQUIRE_FALSE(read);
  CHECK(read.error().message == "cannot read " + big.string() + ": it is larger than 1 MiB");
  CHECK(disk.read_file(big, kLargeFileLimit));

  read = disk.read_file(dir.path);
  REQUIRE_FALSE(read);
  CHECK_THAT(read.error().message, Catch::Contains("it is a folder"));
  CHECK_FALSE(disk.read_file(dir.path / "missing"));

  auto exact = dir.path / "exact";
  REQUIRE(write_file_atomically(exact, std::string(kSmallFileLimit, 'x')));
  CHECK(disk.read_file(exact)->size() == kSmallFileLimit);
}

TEST_CASE("write_file_atomically never writes through a planted link or file") {
  TempDir dir;
  auto victim = dir.path / "victim";
  REQUIRE(write_file_atomically(victim, "precious\n"));
  auto target = dir.path / "cuda.toml";
  // Links at every name a guessing attacker could try, and at the target itself.
  for (const char* name : {".cuda.toml.tmp", "cuda.toml.tmp", ".cuda.toml.tmp-0000000000000000"}) {
    std::filesystem::create_symlink(victim, dir.path / name);
  }
  std::filesystem::create_symlink(victim, target);
  REQUIRE(write_file_atomically(target, "[cuda]\nversion = \"12\"\n"));
  CHECK(text_of(victim) == "precious\n");
  CHECK_FALSE(std::filesystem::is_symlink(target));  // the link was replaced, not followed
  CHECK(text_of(target) == "[cuda]\nversion = \"12\"\n");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path)) ++entries;
  CHECK(entries == 5);  // no temporary left behind
}

TEST_CASE("write_file_atomically keeps the mode of the file it replaces, or takes the one given") {
  TempDir dir;
  auto file = dir.path / "cuda.toml";
  REQUIRE(write_file_atomically(file, "a"));
  REQUIRE(::chmod(file.c_str(), 0640) == 0);
  REQUIRE(write_file_atomically(file, "b"));
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  REQUIRE(write_file_atomically(dir.path / "shim", "c", 0755));
  REQUIRE(::stat((dir.path / "shim").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0755);
}

TEST_CASE("write_file_atomically names the file and leaves no temporary when it cannot write") {
  TempDir dir;
  auto missing = dir.path / "no-such-folder" / "cuda.toml";
  auto written = write_file_atomically(missing, "x");
  REQUIRE_FALSE(written);
  CHECK_THAT(written.error().message, Catch::StartsWith("cannot write " + missing.string() + ": "));
}

TEST_CASE("temporary_path_beside picks a different hidden name each time") {
  auto a = temporary_path_beside("/r/shims/nvcc"), b = temporary_path_beside("/r/shims/nvcc");
  CHECK(a != b);
  CHECK(a.parent_path() == "/r/shims");
  CHECK_THAT(a.filename().string(), Catch::StartsWith(".nvcc.tmp-"));
}

TEST_CASE("FileLock: a second holder waits until the first lets go, and is told it waits") {
  auto dir = std::filesystem::temp_directory_path() / ("cudaenv-lock-" + std::to_string(::getpid()));
  auto path = dir / "locks" / "install-12.1.1";
  std::atomic<bool> waited{false}, acquired{false};
  std::optional<Result<FileLock>> first;
  first.emplace(FileLock::acquire(path));
  REQUIRE(first->ok());
  // Another open file description of the same file, as a second process would have.
  std::thread second([&] {
    auto lock = FileLock::acquire(path, [&] { waited = true; });
    acquired = lock.ok();
  });
  for (int i = 0; i < 400 && !waited; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(waited);
  CHECK_FALSE(acquired);
  first.reset();
  second.join();
  CHECK(acquired);
  std::filesystem::remove_all(dir);
}

TEST_CASE("FileLock::try_acquire gets a free lock and never waits for a held one") {
  auto dir = std::filesystem::temp_directory_path() / ("cudaenv-trylock-" + std::to_string(::getpid()));
  auto path = dir / "install-12.4.1";
  std::filesystem::create_directories(dir);
  {
    auto held = FileLock::acquire(path);
    REQUIRE(held.ok());
    CHECK_FALSE(FileLock::try_acquire(path));  // another open file description: a conflict
  }
  CHECK(FileLock::try_acquire(path));
  std::filesystem::remove_all(dir);
}

TEST_CASE("same_bytes and is_same_program: a copy is the same program, one changed byte or size is not") {
  TempDir dir;
  std::string bytes(200000, 'x');  // more than one read's block
  auto write = [&](const char* name, const std::string& text) {
    REQUIRE(write_file_atomically(dir.path / name, text, 0755).ok());
    return dir.path / name;
  };
  auto program = write("program", bytes), copy = write("copy", bytes);
  bytes[150000] = 'y';
  auto changed = write("changed", bytes), shorter = write("shorter", bytes.substr(1));
  auto same = [](const std::filesystem::path& a, const std::filesystem::path& b) {
    int a_fd = ::open(a.c_str(), O_RDONLY), b_fd = ::open(b.c_str(), O_RDONLY);
    Result<bool> result = same_bytes(a_fd, b_fd);
    ::close(a_fd);
    ::close(b_fd);
    return result.value();
  };
  CHECK(same(program, copy));
  CHECK(!same(program, changed));
  CHECK(!same(program, shorter));
  CHECK(is_same_program(copy, program));
  CHECK(!is_same_program(changed, program));
  CHECK(!same_file(copy, program));  // identity, not content
}
