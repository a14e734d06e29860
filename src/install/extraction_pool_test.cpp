#include <catch2/catch.hpp>

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <optional>
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
  ExtractionQueue queue(sizes, cores, static_cast<unsigned>(cores));
  Schedule schedule;
  schedule.finished_at.assign(cores, 0);
  std::vector<bool> busy(cores, false);
  for (std::uint64_t tick = 0; schedule.starts.size() < sizes.size(); ++tick) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (verified_at[i] == tick) queue.verified(i);
    }
    if (tick > *std::max_element(verified_at.begin(), verified_at.end())) queue.downloads_over();
    for (size_t core = 0; core < cores; ++core) {
      if (busy[core] && schedule.finished_at[core] == tick) {
        busy[core] = false;
        queue.extracted();
      }
    }
    for (size_t core = 0; core < cores; ++core) {
      if (busy[core]) continue;
      std::optional<size_t> next = queue.take();
      if (!next) break;
      schedule.starts.push_back(Start{*next, tick});
      schedule.finished_at[core] = tick + sizes[*next];
      busy[core] = true;
    }
  }
  return schedule;
}

}  // namespace

TEST_CASE("extraction queue: the largest verified archive goes first, whatever order downloads finish in") {
  ExtractionQueue queue({3, 120, 45, 8}, 4, 4);  // a core for each: only the order counts
  CHECK(!queue.take());
  queue.verified(0);
  queue.verified(3);
  queue.verified(2);
  CHECK(queue.take() == 2u);
  queue.verified(1);
  CHECK(queue.take() == 1u);
  CHECK(queue.take() == 3u);
  CHECK_FALSE(queue.drained());  // archive 0 waits still
  CHECK(queue.take() == 0u);
  CHECK_FALSE(queue.drained());  // more may be verified
  queue.downloads_over();
  CHECK(queue.drained());
  CHECK(!queue.take());
}

TEST_CASE("extraction queue: equal sizes go in the order they were verified") {
  ExtractionQueue queue({5, 5, 5}, 3, 3);
  queue.verified(2);
  queue.verified(0);
  queue.verified(1);
  CHECK(queue.take() == 2u);
  CHECK(queue.take() == 0u);
  CHECK(queue.take() == 1u);
}

TEST_CASE("extraction queue: the largest archive starts at once beside the others, which wait for a core") {
  ExtractionQueue queue({3, 120, 45, 8}, 2, 2);
  queue.verified(2);
  queue.verified(3);
  CHECK(queue.take() == 2u);
  CHECK(queue.take() == 3u);
  queue.verified(0);
  CHECK(!queue.take());  // both cores have an archive
  queue.verified(1);
  CHECK(queue.take() == 1u);  // the largest of all does not wait: a third extraction
  CHECK(!queue.take());
  queue.extracted();
  CHECK(!queue.take());  // still one per core
  queue.extracted();
  CHECK(queue.take() == 0u);
  queue.downloads_over();
  CHECK(queue.drained());
  CHECK(queue.most_running() == 3u);
}

TEST_CASE("extraction queue: decoders get one thread until fewer archives are left than cores") {
  ExtractionQueue queue({3, 120, 45, 8}, 2, 2);
  for (size_t i = 0; i < 4; ++i) queue.verified(i);
  queue.downloads_over();
  CHECK(queue.take() == 1u);
  CHECK(queue.decoder_threads() == 1u);
  CHECK(queue.take() == 2u);
  CHECK(queue.decoder_threads() == 1u);
  queue.extracted();
  CHECK(queue.take() == 3u);
  CHECK(queue.decoder_threads() == 1u);  // three unfinished: archive 1 still runs
  queue.extracted();
  queue.extracted();
  CHECK(queue.take() == 0u);
  CHECK(queue.decoder_threads() == 2u);  // alone: both cores
}

TEST_CASE("extraction queue: the decoder cores are shared evenly among the archives that can run side by side") {
  ExtractionQueue alone({50}, 4, 4);
  alone.verified(0);
  CHECK(alone.take() == 0u);
  CHECK(alone.decoder_threads() == 4u);
  ExtractionQueue pair({50, 10}, 4, 4);
  pair.verified(0);
  CHECK(pair.take() == 0u);
  CHECK(pair.decoder_threads() == 2u);  // the other is still to come
  // --jobs 1 on 16 cores: one archive at a time, on every core; --jobs 4: a quarter each.
  ExtractionQueue one_at_a_time({50, 10, 20}, 1, 16);
  one_at_a_time.verified(0);
  CHECK(one_at_a_time.take() == 0u);
  CHECK(one_at_a_time.decoder_threads() == 16u);
  ExtractionQueue four({50, 10, 20, 30, 40}, 4, 16);
  four.verified(0);
  CHECK(four.take() == 0u);
  CHECK(four.decoder_threads() == 4u);
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
  ExtractionPool pool(1, 1, sizes, [&](size_t index, unsigned) -> Status {
    submitted.wait();      // the worker holds its first archive until the others wait
    ran.push_back(index);  // one core: one worker at a time, as archive 3 never comes
    return ok_status();
  });
  for (size_t index : {0, 1, 2}) pool.submit(index);
  all_submitted.set_value();
  CHECK(pool.finish());  // archive 3 was not downloaded: the rest still run
  REQUIRE(ran.size() == 3);
  std::vector<size_t> sorted = ran;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<size_t>{0, 1, 2});
  // The first was taken from whatever had been submitted by then; the rest all waited together.
  CHECK(std::is_sorted(ran.begin() + 1, ran.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; }));
}

TEST_CASE("extraction pool: the largest archive starts while a smaller one holds the only core") {
  std::promise<void> largest_started;
  std::shared_future<void> started = largest_started.get_future().share();
  std::atomic<bool> waited_in_vain{false};
  ExtractionPool pool(1, 1, {10, 300}, [&](size_t index, unsigned) -> Status {
    if (index == 1) largest_started.set_value();
    // Generous: a loaded machine may be slow to start the second worker.
    else if (started.wait_for(std::chrono::seconds(60)) != std::future_status::ready) waited_in_vain = true;
    return ok_status();
  });
  pool.submit(0);
  pool.submit(1);
  CHECK(pool.finish());
  CHECK_FALSE(waited_in_vain);
}

TEST_CASE("extraction pool: the first error is returned and the rest are skipped") {
  std::atomic<int> ran{0};
  ExtractionPool pool(1, 1, {10, 5}, [&](size_t index, unsigned) -> Status {
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
