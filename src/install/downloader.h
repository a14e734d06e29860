#pragma once
// Fetching archives over http(s) and file:// with libcurl: several at once, resuming a
// partial `.part` file (or a cut transfer) with a Range request, retrying resets, timeouts and 5xx (never 4xx),
// and checking size and sha256 on the way, each archive's bytes handed on as they arrive and its
// end once it matched (ArrivingFile); the disks' free space is checked before the first byte is
// written. A server that cannot resume sends the file from its first byte again, and the bytes
// handed on already must come again unchanged. Everything is bounded: an archive never grows past its
// manifest's size, a text file past kMaxTextBytes, and every transfer has an overall deadline
// besides the low-speed rule.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "install/fetch_settings.h"

#include "install/archive.h"
#include "install/progress.h"
#include "util/result.h"

namespace cudaenv {

class ArrivingFile;

struct DownloadJob {
  Archive archive;                    // its name is in every message; checked against its size and sha256
  std::filesystem::path destination;  // "<destination>.part" while incomplete
  // Where the extraction reads the archive as it arrives; the transfer pauses while that lags
  // (its bytes then go to the other transfers). Optional.
  ArrivingFile* arriving = nullptr;
  // The bytes go to the extraction in memory (a wheel: its inflater holds 32 KiB). Otherwise the
  // extraction reads them back from the .part, which always grows whole: an xz decoder holds up
  // to 9 MiB, 4 of them run at once, and their unread bytes in memory would take the install
  // past its 64 MiB.
  bool in_memory = false;
  // With in_memory: the file serves only to resume a later run (the install removes it once it is
  // committed), so from the transfer's first pause for its extraction on, its .part stops
  // growing, and the file is never made whole.
  bool only_to_resume = false;
};

// Where a download's bytes go until it is whole: "<destination>.part".
std::filesystem::path part_path(const std::filesystem::path& destination);

// Manifests, listings and indexes are tens of kB; NVIDIA's biggest manifest is under 100 kB.
inline constexpr std::uint64_t kMaxTextBytes = 32ull << 20;

// Room a transfer needs besides its own file: `bytes` on the file system of `dir` (an existing
// folder). Checked before downloads start, so a full disk is reported up front, not half-way.
struct SpaceNeed {
  std::filesystem::path dir;
  std::uint64_t bytes = 0;
};

struct DownloadOptions {
  int jobs = kDefaultJobs;
  int tries = 3;
  std::chrono::milliseconds first_backoff{500};  // doubled on each further try
  long low_speed_seconds = 30;                   // a transfer below 1 kB/s for this long times out
  std::function<bool()> should_stop;             // polled often; true aborts (Ctrl-C)
  // Polled often: a job no longer wanted (another archive failed) is dropped, not started or
  // stopped where it is, its .part kept; the others go on. Unset: all are.
  std::function<bool(size_t job)> wanted;
  std::vector<SpaceNeed> also_needed;  // checked with the downloads' space (the unpacked toolkit)
  FetchSettings fetch;                 // as the command found them (install/fetch_settings.h)
};

// The overall deadline of one try at an archive of `size` bytes: 10 minutes plus the time at
// 256 kB/s, so a server that stays just above the low-speed rule still ends.
// CUDAENV_DOWNLOAD_TIMEOUT (seconds), where set, replaces it for every archive; an error names a
// value that is no number of seconds.
Result<std::chrono::seconds> transfer_deadline(std::uint64_t size, const FetchTimeouts& timeouts);

// A text download (fetch_text, fetch_size: manifests, listings, index pages, metapackages) has
// one deadline across all its tries: CUDAENV_TEXT_TIMEOUT's seconds, else the default.
Result<std::chrono::seconds> text_timeout(const FetchTimeouts& timeouts);

// Downloads every job, each file checked against its size and sha256 (and handed to its
// ArrivingFile as it arrives). A file already complete in place is verified and reused without a
// transfer.
Status download_all(const std::vector<DownloadJob>& jobs, const DownloadOptions& options, ProgressReporter& progress);

// A small text file (a manifest), with the same retry rules. A server that answers 404 or 410
// gives an error of kind ErrorKind::not_on_server.
// `accept`, when given, is sent as the Accept header (an index that serves JSON or HTML by it).
Result<std::string> fetch_text(const std::string& url, const DownloadOptions& options, const std::string& accept = {});

// The size a server gives for `url` (a HEAD request's Content-Length), with the same retry
// rules: for files whose index page states no size.
Result<std::uint64_t> fetch_size(const std::string& url, const DownloadOptions& options);

// Whether the server has `url` (a HEAD request, redirects followed), with the same retry rules
// and deadline: false for 404 and 410; an error where it could not be asked.
Result<bool> url_exists(const std::string& url, const DownloadOptions& options);

// The error for an interrupted run (exit 130, as a shell reports SIGINT).
Error interrupted_error();

}  // namespace cudaenv
