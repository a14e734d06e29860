#pragma once
// One archive's download as its extraction reads it, while it arrives. The downloader hands over
// the bytes as they come; the extraction reads them in order, waiting for more, and gets the
// archive's end only once the whole file has matched its sha256. So an archive unpacks as it
// downloads, into the staging folder, which a mismatch removes whole; and nothing of it is
// committed before its last byte matched. A failed download stops the reader. How far the
// reader lags behind is what the downloader paces the transfer by.
//
// The bytes come from memory, not back from the `.part` file the downloader may also write
// (reading them again cost the install a fifth of its system time): only what an earlier run
// left in the file, which this run does not download again, is read from it.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <vector>

#include "install/byte_source.h"
#include "install/core_slots.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

class ArrivingFile : public ByteSource {
 public:
  // The downloader's side. `path` holds the archive's first `present` bytes already (a resumed
  // download, or a complete file from the cache), which the reader reads from it. Only the first
  // call counts: a later try of the transfer goes on where the bytes handed over end.
  void begin(const std::filesystem::path& path, std::uint64_t present);
  // The archive's next bytes, after all that arrived before.
  void arrived(std::vector<char>&& bytes);
  // Or, for an archive whose bytes are not handed over in memory: the file holds its first `size`
  // bytes, which the reader reads from it.
  void written(std::uint64_t size);
  // An empty buffer for the next bytes: one the reader is done with, where there is one (the
  // buffers are larger than the allocator's mmap threshold, and a fresh one per batch cost a
  // mapping and its page faults).
  std::vector<char> spare();
  // Complete, and it matched its sha256: the reader gets the end of the archive. `whole`, where
  // given, holds the whole archive: the bytes not read yet are read from it, and the memory they
  // took is freed (an archive whose extraction has not begun would otherwise keep it all).
  void verified(const std::filesystem::path& whole = {});
  // The install stops (another archive failed, or it was interrupted): the reader's next read
  // fails, and whoever stopped it knows why.
  void stop();
  // Bytes arrived that the reader has not read yet.
  std::uint64_t backlog() const;
  // For a transfer paused while the reader lags: `wake` runs once, on the reader's thread, when
  // the backlog falls below `backlog` (at once where it is below already), so the transfer goes
  // on as soon as it may. Polling for it instead left both cores idle for up to a poll's timeout.
  void wake_below(std::uint64_t backlog, std::function<void()> wake);
  bool is_verified() const;

  // How the reader shares its core (CoreSlots) while it reads and waits for bytes.
  void set_turns(const CoreTurns* turns) { turns_ = turns; }

  // The reader's side: until the bytes begin to arrive; false when the download failed first.
  bool wait_begun();
  // The file from byte 0.
  Result<size_t> read(std::span<std::uint8_t> out) override;
  // The next batch in memory, in place (SourceBuffer inflates from it without copying it).
  std::span<const std::uint8_t> lend() override;
  void give_back(size_t count) override;

 private:
  // From the file, which holds the first file_end_ bytes; `lock` is held on entry and on return.
  Result<size_t> read_file(std::span<std::uint8_t> out, std::unique_lock<std::mutex>& lock);
  // The bytes not read yet from whole_ rather than memory; mutex_ held, no copy under way.
  void read_rest_from_whole();
  // The batch lent last is done with: a spare, or freed; mutex_ held.
  void take_back_lent();
  // A buffer the reader is done with, kept for spare() while the download goes on; mutex_ held.
  void keep_spare(std::vector<char>&& buffer);
  // fd_ on path_, unless open; an error for the reader where it cannot be; mutex_ held.
  void open_file();
  // The reader has read more: wake_ runs where the backlog fell below wake_below_; mutex_ held.
  void woken_by_read();

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::filesystem::path path_;  // named in errors
  bool begun_ = false;
  std::uint64_t arrived_ = 0;
  std::uint64_t read_ = 0;
  std::uint64_t wake_at_ = 0;  // while the reader waits: the arrived_ that wakes it
  bool verified_ = false;
  bool stopped_ = false;
  std::optional<Error> error_;
  OpenFd fd_;  // the file, for its first file_end_ bytes
  std::uint64_t file_end_ = 0;
  std::deque<std::vector<char>> pieces_;  // the bytes from file_end_ on, not yet read
  size_t front_read_ = 0;                 // of pieces_.front()
  std::vector<std::vector<char>> spares_;
  std::vector<char> lent_;       // the batch the reader reads in place (lend)
  bool copying_ = false;         // the reader copies from pieces_.front() without the lock
  std::filesystem::path whole_;  // verified(whole): read the rest from it once no copy is under way
  const CoreTurns* turns_ = nullptr;
  std::uint64_t wake_below_ = 0;
  std::function<void()> wake_;
};

}  // namespace cudaenv
