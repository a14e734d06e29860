#pragma once
// Extracting verified archives on a few threads while the rest still download, largest first.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "util/result.h"

namespace cudaenv {

// The cores this process may run on (its CPU affinity, which taskset and container cpusets
// narrow), at least 1; std::thread::hardware_concurrency counts every online core instead.
// How many archives are extracted side by side, and how many threads each decoder gets.
unsigned usable_cores();

// The order verified archives are extracted in: the largest one waiting goes first, so the
// longest extraction starts as soon as its archive is verified and the small ones fill the gaps
// beside it (longest-first list scheduling: the cores finish together, give or take the smallest
// archive). Archives arrive in whatever order their downloads finish. Pure; not thread-safe.
class ExtractionQueue {
 public:
  explicit ExtractionQueue(std::vector<std::uint64_t> sizes) : sizes_(std::move(sizes)) {}

  // Archive `index` is complete and matches its sha256.
  void verified(size_t index) { waiting_.push_back(index); }
  // The largest waiting archive (the first verified among equal sizes), now taken; nullopt when none waits.
  std::optional<size_t> take();
  bool empty() const { return waiting_.empty(); }
  // Every archive has been taken: the one taken last starts no other after it.
  bool all_taken() const { return taken_ == sizes_.size(); }

 private:
  std::vector<std::uint64_t> sizes_;
  std::vector<size_t> waiting_;  // in the order they were verified
  size_t taken_ = 0;
};

// `threads` workers run `work(index, last)` for each submitted archive, in ExtractionQueue's
// order; `last`: no archive is left to start after it, so it may use the cores the others free.
// After the first error the rest are skipped.
class ExtractionPool {
 public:
  using Work = std::function<Status(size_t index, bool last)>;
  ExtractionPool(size_t threads, std::vector<std::uint64_t> sizes, Work work);
  ~ExtractionPool() { (void)finish(); }
  ExtractionPool(const ExtractionPool&) = delete;
  ExtractionPool& operator=(const ExtractionPool&) = delete;

  void submit(size_t index);
  bool failed() const { return failed_; }
  // Waits for the submitted work; the first error, if any.
  Status finish();

 private:
  void loop();

  Work work_;
  std::vector<std::thread> threads_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  ExtractionQueue queue_;
  bool closed_ = false;
  std::atomic<bool> failed_{false};  // polled by the downloads without the lock
  std::optional<Error> error_;
};

}  // namespace cudaenv
