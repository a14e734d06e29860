#pragma once
// One archive's download as its extraction reads it, while it arrives. The downloader writes the
// file and says how far it got; the extraction reads the bytes in order, waiting for more, and
// gets the archive's end only once the whole file has matched its sha256. So an archive unpacks as
// it downloads, into the staging folder, which a mismatch removes whole; and nothing of it is
// committed before its last byte matched. A failed download stops the reader. How far the
// reader lags behind is what the downloader paces the transfer by.

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>

#include "install/byte_source.h"
#include "install/core_slots.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

class ArrivingFile : public ByteSource {
 public:
  // The downloader's side. The bytes arrive in `path` from byte 0; `present` of them are there
  // already (a resumed download, or a complete file from the cache).
  void begin(const std::filesystem::path& path, std::uint64_t present);
  // The file holds `size` bytes from byte 0, as the archive has them (never fewer than before).
  void arrived(std::uint64_t size);
  // Complete, and it matched its sha256: the reader gets the end of the archive.
  void verified();
  // The install stops (another archive failed, or it was interrupted): the reader's next read
  // fails, and whoever stopped it knows why.
  void stop();
  // Bytes arrived that the reader has not read yet.
  std::uint64_t backlog() const;
  bool is_verified() const;

  // How the reader shares its core (CoreSlots) while it reads and waits for bytes.
  void set_turns(const CoreTurns* turns) { turns_ = turns; }

  // The reader's side: until the bytes begin to arrive; false when the download failed first.
  bool wait_begun();
  // The file from byte 0.
  Result<size_t> read(std::span<std::uint8_t> out) override;

 private:
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
  OpenFd fd_;  // the reader's, opened when the bytes begin (the file is renamed once complete)
  const CoreTurns* turns_ = nullptr;
};

}  // namespace cudaenv
