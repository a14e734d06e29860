#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "install/arriving_file.h"

using namespace cudaenv;
namespace fs = std::filesystem;

namespace {

std::string read_some(ArrivingFile& file, size_t most) {
  std::string out(most, '\0');
  auto got = file.read({reinterpret_cast<std::uint8_t*>(out.data()), out.size()});
  REQUIRE(got);
  out.resize(*got);
  return out;
}

std::vector<char> bytes_of(const std::string& text) { return {text.begin(), text.end()}; }

struct PartFile {
  fs::path path = fs::temp_directory_path() / ("cudaenv-arriving-" + std::to_string(::getpid()) + ".part");
  std::ofstream out{path, std::ios::binary};
  void write(const std::string& bytes) { out << bytes << std::flush; }
  ~PartFile() { fs::remove(path); }
};

}  // namespace

TEST_CASE("arriving file: the reader gets the bytes as they arrive, and the end only once they matched") {
  ArrivingFile file;
  file.begin("unused.part", 0);  // nothing on disk: every byte comes from the downloader
  file.arrived(bytes_of("hello "));
  CHECK(file.backlog() == 6);
  CHECK(read_some(file, 3) == "hel");
  CHECK(read_some(file, 100) == "lo ");
  CHECK(file.backlog() == 0);
  std::atomic<bool> lent{false}, taken_back{false};
  CoreTurns turns{[] { return true; }, [&] { lent = true; }, [&] { return taken_back = true; }};
  file.set_turns(&turns);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    file.arrived(bytes_of("world"));
  });
  CHECK(read_some(file, 100) == "world");  // waited, lending its core meanwhile
  writer.join();
  CHECK(lent);
  CHECK(taken_back);
  // All bytes read, but not yet vouched for: the reader waits rather than see an end.
  std::atomic<bool> ended{false};
  std::thread reader([&] { ended = read_some(file, 100).empty(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(ended);
  CHECK_FALSE(file.is_verified());
  file.verified();
  reader.join();
  CHECK(ended);
  CHECK(file.is_verified());
}

TEST_CASE("arriving file: what an earlier run left on disk is read from the file, the rest from the downloader") {
  PartFile part;
  part.write("hello XXXX");  // bytes past what begin() vouches for are never read
  ArrivingFile file;
  file.begin(part.path, 6);
  file.begin(part.path, 10);  // a later try changes nothing
  CHECK(file.backlog() == 6);
  file.arrived(bytes_of("world"));
  CHECK(file.backlog() == 11);
  std::string got;
  while (got.size() < 11) got += read_some(file, 4);
  CHECK(got == "hello world");
  file.verified();
  CHECK(read_some(file, 100).empty());
}

TEST_CASE("arriving file: bytes the downloader wrote to the file are read from it") {
  PartFile part;
  ArrivingFile file;
  file.begin(part.path, 0);
  part.write("hello");
  file.written(5);
  CHECK(file.backlog() == 5);
  CHECK(read_some(file, 100) == "hello");
  part.write(" world");
  file.written(11);
  CHECK(read_some(file, 100) == " world");
  file.verified(part.path);
  CHECK(read_some(file, 100).empty());

  ArrivingFile missing;  // a file that cannot be read fails the reader, naming it
  missing.begin(part.path.string() + ".gone", 0);
  missing.written(5);
  std::uint8_t byte = 0;
  auto failed = missing.read({&byte, 1});
  REQUIRE_FALSE(failed);
  CHECK(failed.error().message.find(".gone") != std::string::npos);
}

TEST_CASE("arriving file: once the whole file is on disk, the bytes not read yet come from it, not memory") {
  PartFile part;
  part.write("hello WORLD");  // unlike what arrived, to tell where each byte came from
  ArrivingFile file;
  file.begin(part.path, 0);
  file.arrived(bytes_of("hello "));
  file.arrived(bytes_of("world"));
  CHECK(read_some(file, 3) == "hel");
  file.verified(part.path);
  std::string rest;
  for (std::string got; !(got = read_some(file, 4)).empty();) rest += got;
  CHECK(rest == "lo WORLD");

  ArrivingFile unread;  // an extraction that has not begun: nothing of it stays in memory
  unread.begin(part.path, 0);
  unread.arrived(bytes_of("hello world"));
  unread.verified(part.path);
  CHECK(read_some(unread, 100) == "hello WORLD");
}

TEST_CASE("arriving file: a batch is lent in place, and what is given back is read again") {
  ArrivingFile file;
  file.begin("unused.part", 0);
  CHECK(file.lend().empty());  // nothing at hand: the reader reads (and waits) instead
  file.arrived(bytes_of("hello "));
  file.arrived(bytes_of("world"));
  auto lent = file.lend();
  CHECK(std::string(reinterpret_cast<const char*>(lent.data()), lent.size()) == "hello ");
  CHECK(file.backlog() == 5);
  file.give_back(3);
  CHECK(file.backlog() == 8);
  CHECK(read_some(file, 100) == "lo ");
  lent = file.lend();
  CHECK(std::string(reinterpret_cast<const char*>(lent.data()), lent.size()) == "world");
  CHECK(file.spare().capacity() >= 6);  // the first batch, done with once the next was lent
  file.verified();
  CHECK(read_some(file, 100).empty());
}

TEST_CASE("arriving file: a buffer the reader is done with goes back to the downloader") {
  ArrivingFile file;
  file.begin("unused.part", 0);
  CHECK(file.spare().capacity() == 0);  // none yet
  std::vector<char> piece(1000, 'a');
  piece.reserve(4096);
  file.arrived(std::move(piece));
  CHECK(file.spare().capacity() == 0);  // still unread
  CHECK(read_some(file, 600).size() == 600);
  CHECK(file.spare().capacity() == 0);  // still partly unread
  CHECK(read_some(file, 600).size() == 400);
  std::vector<char> again = file.spare();
  CHECK(again.empty());
  CHECK(again.capacity() >= 4096);
}

TEST_CASE("arriving file: a stopped install ends the reader's wait, before and after the bytes begin") {
  PartFile part;
  ArrivingFile file;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    file.stop();
  });
  CHECK_FALSE(file.wait_begun());
  stopper.join();
  std::uint8_t byte = 0;
  CHECK_FALSE(file.read({&byte, 1}));

  ArrivingFile waiting;
  waiting.begin(part.path, 0);
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    waiting.stop();
  });
  CHECK_FALSE(waiting.read({&byte, 1}));  // it waited for bytes, and the stop ended the wait
  later.join();
}

TEST_CASE("arriving file: a hook that says stop ends the read") {
  PartFile part;
  ArrivingFile file;
  file.begin(part.path, 0);
  CoreTurns turns{[] { return false; }, [] {}, [] { return true; }};
  file.set_turns(&turns);
  std::uint8_t byte = 0;
  CHECK_FALSE(file.read({&byte, 1}));
}

TEST_CASE("arriving file: a reader waiting for a batch gets fewer bytes once its wait for the batch ran out") {
  // arrived() wakes a waiting reader only when what it waits for is there: first a batch
  // (1 MiB), then, after 50 ms, any byte. Bytes that come long after the first wait must still
  // wake it, and a batch that comes at once must too.
  ArrivingFile file;
  file.begin("unused.part", 0);
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    file.arrived(bytes_of("abc"));
  });
  CHECK(read_some(file, 100) == "abc");
  late.join();

  std::string batch(1 << 20, 'x');
  std::thread soon([&] { file.arrived(bytes_of(batch)); });
  std::string got;
  while (got.size() < batch.size()) got += read_some(file, batch.size() - got.size());
  soon.join();
  CHECK(got == batch);
}

TEST_CASE("arriving file: a paused transfer is woken once, when the reader has read below the mark") {
  ArrivingFile file;
  file.begin("unused.part", 0);
  file.arrived(bytes_of("0123456789"));
  int wakes = 0;
  file.wake_below(4, [&] { ++wakes; });
  CHECK(read_some(file, 6) == "012345");
  CHECK(wakes == 0);  // 4 bytes wait: not below the mark
  CHECK(read_some(file, 1) == "6");
  CHECK(wakes == 1);
  CHECK(read_some(file, 1) == "7");
  CHECK(wakes == 1);  // once

  file.wake_below(4, [&] { ++wakes; });  // below already: at once
  CHECK(wakes == 2);

  file.arrived(bytes_of("abcdef"));  // 8 wait
  file.wake_below(5, [&] { ++wakes; });
  CHECK(read_some(file, 2) == "89");
  auto lent = file.lend();  // a lent batch counts as read
  CHECK(lent.size() == 6);
  CHECK(wakes == 3);
  file.give_back(6);

  file.wake_below(0, {});  // disarmed: reading wakes nobody
  CHECK(read_some(file, 6) == "abcdef");
  CHECK(wakes == 3);
}
