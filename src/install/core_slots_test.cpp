#include <catch2/catch.hpp>

#include <sched.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "install/core_slots.h"
#include "util/process.h"

using namespace cudaenv;

namespace {

// Until `done` holds, or a generous minute on a loaded machine.
template <class Done>
bool eventually(Done done) {
  for (int i = 0; i < 6000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done();
}

}  // namespace

TEST_CASE("core slots: a core waits for the extraction holding it, and goes to the largest archive waiting") {
  CoreSlots cores(1);
  REQUIRE(cores.take(10));
  std::mutex mutex;
  std::vector<std::uint64_t> order;
  std::atomic<int> waiting{0};
  auto wait_for_core = [&](std::uint64_t priority) {
    ++waiting;
    REQUIRE(cores.take(priority));
    {
      std::lock_guard lock(mutex);
      order.push_back(priority);
    }
    cores.give_back();
  };
  std::thread small(wait_for_core, 3), large(wait_for_core, 50), middle(wait_for_core, 20);
  REQUIRE(eventually([&] { return waiting == 3; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // all three blocked in take()
  CHECK(order.empty());
  cores.give_back();
  small.join();
  large.join();
  middle.join();
  CHECK(order == std::vector<std::uint64_t>{50, 20, 3});
}

TEST_CASE("core slots: yield hands the core to a larger archive waiting, and only then") {
  CoreSlots cores(1);
  REQUIRE(cores.take(10));
  CHECK(cores.yield(10));  // nobody waits: kept
  std::atomic<bool> larger_ran{false};
  std::thread larger([&] {
    REQUIRE(cores.take(99));
    larger_ran = true;
    cores.give_back();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(larger_ran);
  CHECK(cores.yield(10));  // waits while the larger one runs, then has the core again
  CHECK(larger_ran);
  larger.join();
  cores.give_back();
}

TEST_CASE("core slots: stop ends every wait") {
  CoreSlots cores(1);
  REQUIRE(cores.take(1));
  std::atomic<int> refused{0};
  std::thread a([&] { refused += !cores.take(5); }), b([&] { refused += !cores.take(7); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  cores.stop();
  a.join();
  b.join();
  CHECK(refused == 2);
  CHECK_FALSE(cores.yield(1));
}

TEST_CASE("usable cores follow the CPU affinity, as taskset sets it") {
  cpu_set_t all;
  REQUIRE(sched_getaffinity(0, sizeof all, &all) == 0);
  CHECK(usable_cores() == static_cast<unsigned>(CPU_COUNT(&all)));
  int first = 0;
  while (!CPU_ISSET(first, &all)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  unsigned narrowed = usable_cores();
  REQUIRE(sched_setaffinity(0, sizeof all, &all) == 0);
  CHECK(narrowed == 1u);
}
