#include "install/core_slots.h"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace cudaenv {

bool CoreSlots::take(std::uint64_t priority) {
  std::unique_lock lock(mutex_);
  auto waiter = waiting_.insert(priority);
  changed_.wait(lock, [&] { return stopped_ || (free_ > 0 && priority >= *waiting_.rbegin()); });
  waiting_.erase(waiter);
  changed_.notify_all();  // the next waiter may be the highest now
  if (stopped_) return false;
  --free_;
  return true;
}

void CoreSlots::give_back() {
  std::lock_guard lock(mutex_);
  ++free_;
  changed_.notify_all();
}

bool CoreSlots::yield(std::uint64_t priority) {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return false;
    if (waiting_.empty() || *waiting_.rbegin() <= priority) return true;
    ++free_;
    changed_.notify_all();
  }
  return take(priority);
}

void CoreSlots::stop() {
  std::lock_guard lock(mutex_);
  stopped_ = true;
  changed_.notify_all();
}

}  // namespace cudaenv
