#include <catch2/catch.hpp>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <vector>

#include "install/extraction_pool.h"

using namespace cudaenv;

namespace {

struct Start {
  size_t archive;
  std::uint64_t at;  // simulated time, in bytes decoded per core
  bool operator==(const Start& other) const { return archive == other.archive && at == other.at; }
};

struct Schedule {
  std::vector<Start> starts;
  std::vector<std::uint64_t> finished_at;  // per core
};

// Cores extracting at one byte per tick, each archive verified at its own tick: when each
// archive starts, taken from an ExtractionQueue the way the pool's workers take them.
Schedule simulate(const std::vector<std::uint64_t>& sizes, const std::vector<std::uint64_t>& verified_at, size_t cores) {
  ExtractionQueue queue(sizes);
  std::vector<size_t> by_arrival(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) by_arrival[i] = i;
  std::stable_sort(by_arrival.begin(), by_arrival.end(), [&](size_t a, size_t b) { return verified_at[a] < verified_at[b]; });
  Schedule schedule;
  schedule.finished_at.assign(cores, 0);
  size_t arrived = 0;
  while (schedule.starts.size() < sizes.size()) {
    std::uint64_t& core = *std::min_element(schedule.finished_at.begin(), schedule.finished_at.end());
    while (arrived < sizes.size() && verified_at[by_arrival[arrived]] <= core) queue.verified(by_arrival[arrived++]);
    if (queue.empty()) {  // idle until the next archive is verified
      core = verified_at[by_arrival[arrived]];
      continue;
    }
    size_t next = *queue.take();
    schedule.starts.push_back(Start{next, core});
    core += sizes[next];
  }
  return schedule;
}

}  // namespace

TEST_CASE("extraction queue: the largest verified archive goes first, whatever order downloads finish in") {
  ExtractionQueue queue({3, 120, 45, 8});
  CHECK(!queue.take());
  queue.verified(0);
  queue.verified(3);
  queue.verified(2);
  CHECK(queue.take() == 2u);
  queue.verified(1);
  CHECK(queue.take() == 1u);
  CHECK(queue.take() == 3u);
  CHECK_FALSE(queue.all_taken());  // archive 0 waits still
  CHECK(queue.take() == 0u);
  CHECK(queue.empty());
  CHECK(queue.all_taken());
  CHECK(!queue.take());
}

TEST_CASE("extraction queue: equal sizes go in the order they were verified") {
  ExtractionQueue queue({5, 5, 5});
  queue.verified(2);
  queue.verified(0);
  queue.verified(1);
  CHECK(queue.take() == 2u);
  CHECK(queue.take() == 0u);
  CHECK(queue.take() == 1u);
}

TEST_CASE("extraction schedule: small archives downloaded first fill the gaps, the largest waiting goes next") {
  // The bench's archives: four downloads at once finish smallest first; cublas (0) arrives last,
  // and starts on the first core free after it, before cufft (2), which came earlier.
  std::vector<std::uint64_t> sizes = {120, 60, 45, 40, 20, 8, 4, 3};
  std::vector<std::uint64_t> verified_at = {30, 20, 16, 14, 6, 3, 1, 1};
  Schedule schedule = simulate(sizes, verified_at, 2);
  std::vector<Start> expected = {{6, 1}, {7, 1}, {5, 4}, {4, 6}, {3, 14}, {1, 26}, {0, 54}, {2, 86}};
  CHECK(schedule.starts == expected);
}

TEST_CASE("extraction schedule: with every archive verified, two cores finish within the smallest archive") {
  std::vector<std::uint64_t> sizes = {3, 8, 120, 4, 60, 20, 45, 40};
  Schedule schedule = simulate(sizes, std::vector<std::uint64_t>(sizes.size(), 0), 2);
  std::vector<size_t> order;
  for (const Start& start : schedule.starts) order.push_back(start.archive);
  CHECK(order == std::vector<size_t>{2, 4, 6, 7, 5, 1, 3, 0});
  auto [first, last] = std::minmax_element(schedule.finished_at.begin(), schedule.finished_at.end());
  CHECK(*last - *first <= 3);
  CHECK(*last == 151);  // 300 ticks of work on two cores: 150 at best
}

TEST_CASE("extraction pool: workers run every submitted archive, largest waiting first") {
  std::vector<std::uint64_t> sizes = {1, 50, 7, 300};
  std::vector<size_t> ran;
  std::promise<void> all_submitted;
  std::shared_future<void> submitted = all_submitted.get_future().share();
  std::vector<bool> lasts;
  ExtractionPool pool(1, sizes, [&](size_t index, bool last) -> Status {
    submitted.wait();
    lasts.push_back(last);  // the one worker holds its first archive until every archive waits
    ran.push_back(index);
    return ok_status();
  });
  for (size_t index : {0, 1, 2, 3}) pool.submit(index);
  all_submitted.set_value();
  CHECK(pool.finish());
  REQUIRE(ran.size() == 4);
  std::vector<size_t> sorted = ran;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<size_t>{0, 1, 2, 3});
  // The first was taken from whatever had been submitted by then; the rest all waited together.
  CHECK(std::is_sorted(ran.begin() + 1, ran.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; }));
  // Only the fourth started with no archive left after it: it may have every core.
  CHECK(lasts == std::vector<bool>{false, false, false, true});
}

TEST_CASE("extraction pool: the first error is returned and the rest are skipped") {
  std::atomic<int> ran{0};
  ExtractionPool pool(1, {10, 5}, [&](size_t index, bool) -> Status {
    ++ran;
    if (index == 1) return make_error("archive 1 is broken");
    return ok_status();
  });
  pool.submit(1);
  Status first = pool.finish();
  REQUIRE(!first);
  CHECK(first.error().message == "archive 1 is broken");
  CHECK(pool.failed());
  CHECK(ran == 1);
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
