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

ExtractionQueue::ExtractionQueue(std::vector<std::uint64_t> sizes, size_t cores, unsigned decoder_cores)
    : sizes_(std::move(sizes)),
      cores_(std::max<size_t>(1, cores)),
      decoder_cores_(std::max(1u, decoder_cores)),
      largest_(static_cast<size_t>(std::max_element(sizes_.begin(), sizes_.end()) - sizes_.begin())) {}

std::optional<size_t> ExtractionQueue::take() {
  if (waiting_.empty()) return std::nullopt;
  auto largest = std::max_element(waiting_.begin(), waiting_.end(), [&](size_t a, size_t b) { return sizes_[a] < sizes_[b]; });
  size_t index = *largest;
  if (running_ >= cores_ && index != largest_) return std::nullopt;
  waiting_.erase(largest);
  ++running_;
  return index;
}

unsigned ExtractionQueue::decoder_threads() const {
  size_t side_by_side = std::clamp<size_t>(sizes_.size() - extracted_, 1, cores_);
  return std::max(1u, decoder_cores_ / static_cast<unsigned>(side_by_side));
}

ExtractionPool::ExtractionPool(size_t cores, unsigned decoder_cores, std::vector<std::uint64_t> sizes, Work work)
    : work_(std::move(work)), queue_(std::move(sizes), cores, decoder_cores) {
  for (size_t i = 0; i < queue_.most_running(); ++i) threads_.emplace_back([this] { loop(); });
}

void ExtractionPool::submit(size_t index) {
  std::lock_guard lock(mutex_);
  queue_.verified(index);
  ready_.notify_one();
}

Status ExtractionPool::finish() {
  {
    std::lock_guard lock(mutex_);
    queue_.downloads_over();
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
    std::optional<size_t> next;
    unsigned threads = 1;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return (next = queue_.take()) || (queue_.drained() && queue_.idle()); });
      if (!next) return;
      threads = queue_.decoder_threads();
    }
    Status status = failed_ ? ok_status() : work_(*next, threads);
    std::lock_guard lock(mutex_);
    queue_.extracted();
    ready_.notify_all();  // a core is free, or the last extraction is over
    if (!status && !error_) error_ = status.take_error();
    if (!status) failed_ = true;
  }
}

}  // namespace cudaenv
