#pragma once
// The cores the extractions of an install share, the largest archive first. Archives unpack as
// they download, each on one thread, and there may be more of them than cores: an extraction
// holds a core while it decodes and writes, lends it while it waits for bytes, and hands it over
// when a larger archive's extraction waits for one. So the largest archive, whose decoding is the
// longest, decodes whenever its bytes are there, as `xz -d` of the largest archive first would,
// and the small ones fill the gaps beside it. The same slots, more of them, bound how many
// archives are decoded at once (installer.cpp), the largest first too.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>

namespace cudaenv {

// How one extraction shares its core: it may hand it over between reads, and lends it while it
// waits (for bytes, for a file another archive is writing). A hook that returns false stops it.
struct CoreTurns {
  std::function<bool()> between_reads;
  std::function<void()> lend;
  std::function<bool()> take_back;
};

class CoreSlots {
 public:
  explicit CoreSlots(unsigned cores) : free_(cores) {}

  // Blocks until a core is free and no waiting extraction has a higher `priority` (the archive's
  // size); false once stopped.
  bool take(std::uint64_t priority);
  void give_back();
  // Hands the core over when a waiting extraction has a higher priority, and takes one again.
  bool yield(std::uint64_t priority);
  // Every take() returns false from now on (the install failed or was interrupted).
  void stop();

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  unsigned free_;
  std::multiset<std::uint64_t> waiting_;
  bool stopped_ = false;
};

}  // namespace cudaenv
