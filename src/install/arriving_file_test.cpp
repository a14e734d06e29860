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

struct PartFile {
  fs::path path = fs::temp_directory_path() / ("cudaenv-arriving-" + std::to_string(::getpid()) + ".part");
  std::ofstream out{path, std::ios::binary};
  void write(const std::string& bytes) { out << bytes << std::flush; }
  ~PartFile() { fs::remove(path); }
};

}  // namespace

TEST_CASE("arriving file: the reader gets the bytes as they arrive, and the end only once they matched") {
  PartFile part;
  ArrivingFile file;
  part.write("hello ");
  file.begin(part.path, 6);
  CHECK(file.backlog() == 6);
  CHECK(read_some(file, 100) == "hello ");
  CHECK(file.backlog() == 0);
  std::atomic<bool> lent{false}, taken_back{false};
  CoreTurns turns{[] { return true; }, [&] { lent = true; }, [&] { return taken_back = true; }};
  file.set_turns(&turns);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    part.write("world");
    file.arrived(11);
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
  PartFile part;
  ArrivingFile file;
  file.begin(part.path, 0);
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    part.write("abc");
    file.arrived(3);
  });
  CHECK(read_some(file, 100) == "abc");
  late.join();

  std::string batch(1 << 20, 'x');
  std::thread soon([&] {
    part.write(batch);
    file.arrived(3 + batch.size());
  });
  std::string got;
  while (got.size() < batch.size()) got += read_some(file, batch.size() - got.size());
  soon.join();
  CHECK(got == batch);
}
