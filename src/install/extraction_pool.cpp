#include "install/extraction_pool.h"

#include <sched.h>

#include <algorithm>

namespace cudaenv {

unsigned usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
}

std::optional<size_t> ExtractionQueue::take() {
  if (waiting_.empty()) return std::nullopt;
  auto largest = std::max_element(waiting_.begin(), waiting_.end(), [&](size_t a, size_t b) { return sizes_[a] < sizes_[b]; });
  size_t index = *largest;
  waiting_.erase(largest);
  ++taken_;
  return index;
}

ExtractionPool::ExtractionPool(size_t threads, std::vector<std::uint64_t> sizes, Work work)
    : work_(std::move(work)), queue_(std::move(sizes)) {
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
}

void ExtractionPool::submit(size_t index) {
  std::lock_guard lock(mutex_);
  queue_.verified(index);
  ready_.notify_one();
}

Status ExtractionPool::finish() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    ready_.notify_all();
  }
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  if (error_) return *error_;
  return ok_status();
}

void ExtractionPool::loop() {
  while (true) {
    size_t index = 0;
    bool last = false;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return closed_ || !queue_.empty(); });
      std::optional<size_t> next = queue_.take();
      if (!next) return;
      index = *next;
      last = queue_.all_taken();
    }
    if (failed_) continue;
    Status status = work_(index, last);
    if (!status) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = status.take_error();
      failed_ = true;
    }
  }
}

}  // namespace cudaenv
