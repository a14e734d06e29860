#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include "util/file_lock.h"

using namespace cudaenv;

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
