#pragma once
// Extracting verified archives on a few threads while the rest still download, largest first.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "util/result.h"

namespace cudaenv {

// The cores this process may run on (its CPU affinity, which taskset and container cpusets
// narrow), at least 1; std::thread::hardware_concurrency counts every online core instead.
// How many archives are extracted side by side, and how many threads a decoder may get.
unsigned usable_cores();

// The order verified archives are extracted in: the largest one waiting goes first, so the
// longest extraction starts as soon as its archive is verified and the small ones fill the gaps
// beside it (longest-first list scheduling: the cores finish together, give or take the smallest
// archive). Archives arrive in whatever order their downloads finish, and the largest, which
// downloads longest, often comes after smaller ones: it then starts at once beside those that
// run, one more extraction than there are cores, since waiting for a smaller archive to end
// would make the whole install wait for the largest at the end. Pure; not thread-safe.
class ExtractionQueue {
 public:
  // `cores` archives are extracted side by side (give or take the largest); their decoders share
  // `decoder_cores`.
  ExtractionQueue(std::vector<std::uint64_t> sizes, size_t cores, unsigned decoder_cores);

  // Archive `index` is complete and matches its sha256.
  void verified(size_t index) { waiting_.push_back(index); }
  // No archive will be verified any more (the downloads ended, or failed).
  void downloads_over() { downloads_over_ = true; }
  // The largest waiting archive (the first verified among equal sizes), now taken; nullopt when
  // none waits, or when every core has an archive and the one waiting is not the largest.
  std::optional<size_t> take();
  // The decoder threads for the archive just taken: an even share of the decoder cores among
  // the archives that may run side by side, so one thread each while at least as many archives
  // are unfinished as there are cores. Single-threaded decoders side by side waste nothing, and
  // liblzma's threaded decoder for every archive cost 4-5% more CPU in an install (its threads
  // hand blocks over and allocate a buffer per block; bench/install.sh's fixture, 14.5 against
  // 13.9 s); the last archives take the cores the others leave.
  unsigned decoder_threads() const;
  // An archive taken has been extracted.
  void extracted() {
    --running_;
    ++extracted_;
  }
  // Nothing waits and nothing more will come: a free worker stops once no archive is being
  // extracted.
  bool drained() const { return waiting_.empty() && downloads_over_; }
  // No archive is being extracted.
  bool idle() const { return running_ == 0; }
  // The most archives taken and not yet extracted at once: a worker for each.
  size_t most_running() const { return cores_ + 1; }

 private:
  std::vector<std::uint64_t> sizes_;
  size_t cores_;
  unsigned decoder_cores_;
  size_t largest_;  // the largest archive of all, which never waits for a core
  bool downloads_over_ = false;
  std::vector<size_t> waiting_;  // in the order they were verified
  size_t running_ = 0;
  size_t extracted_ = 0;
};

// Workers run `work(index, decoder_threads)` for each submitted archive, in ExtractionQueue's
// order, on `cores` cores. After the first error the rest are skipped.
class ExtractionPool {
 public:
  using Work = std::function<Status(size_t index, unsigned decoder_threads)>;
  ExtractionPool(size_t cores, unsigned decoder_cores, std::vector<std::uint64_t> sizes, Work work);
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
  std::atomic<bool> failed_{false};  // polled by the downloads without the lock
  std::optional<Error> error_;
};

}  // namespace cudaenv
