#include "install/downloader.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "install/arriving_file.h"
#include "install/plan.h"
#include "util/sha256.h"
#include "util/url.h"

namespace cudaenv {

namespace fs = std::filesystem;

fs::path part_path(const fs::path& destination) { return destination.string() + ".part"; }

namespace {

using Clock = std::chrono::steady_clock;

// The most libcurl hands over at once (CURLOPT_BUFFERSIZE).
constexpr size_t kMostPiece = 64 << 10;

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Needs on one file system add up. An error names the folder, what it needs and has.
Status check_free_space(const std::vector<SpaceNeed>& needs, const std::string& what) {
  struct Device {
    fs::path dir;
    std::uint64_t bytes = 0;
  };
  std::map<dev_t, Device> by_device;
  for (const SpaceNeed& need : needs) {
    struct stat st {};
    if (::stat(need.dir.c_str(), &st) != 0) {
      return make_error("cannot check the free space in " + need.dir.string() + ": " + std::strerror(errno));
    }
    Device& device = by_device[st.st_dev];
    if (device.dir.empty()) device.dir = need.dir;
    device.bytes += need.bytes;
  }
  for (const auto& [id, device] : by_device) {
    struct statvfs stats {};
    if (::statvfs(device.dir.c_str(), &stats) != 0) {
      return make_error("cannot check the free space in " + device.dir.string() + ": " + std::strerror(errno));
    }
    std::uint64_t available = static_cast<std::uint64_t>(stats.f_bavail) * stats.f_frsize;
    if (available < device.bytes) {
      return make_error(what + " need about " + human_bytes(device.bytes) + " in " + device.dir.string() +
                            ", but its file system has only " + human_bytes(available) + " free",
                        "free space there, or point CUDAENV_ROOT (or --to) at a larger disk, and run the same "
                        "command again");
    }
  }
  return ok_status();
}

const char* kMirrorHint = "check the URL, or point --mirror / CUDAENV_MIRROR at a mirror that has it";
const char* kIndexHint = "check the URL, or point --index-url / PIP_INDEX_URL at a package index that has it";

// Wheels come from a package index (install --source pypi), everything else from a redist folder.
bool from_package_index(const std::string& url) { return is_wheel(strip_url_query(url)); }

// What vouches for a download's size and sha256, and the option that picks another source.
struct Source {
  const char* listing;  // "the manifest", "the index"
  const char* server;   // "the mirror"
  const char* file;     // "archive", "wheel"
  const char* option;   // "--mirror", "--index-url"
  const char* hint;
};

Source source_of(const std::string& url) {
  if (from_package_index(url)) return {"the index", "the index (or a proxy)", "wheel", "--index-url", kIndexHint};
  return {"the manifest", "the mirror", "archive", "--mirror", kMirrorHint};
}

const char* hint_for(const std::string& url) { return source_of(url).hint; }

// The HTTP statuses by which a server says it has no such file.
bool not_there(long http_status) { return http_status == 404 || http_status == 410; }

// What a failed transfer means for the next step.
enum class Verdict { retry, restart, fatal };

struct Failure {
  Verdict verdict;
  std::string reason;
};

Failure classify(CURLcode code, long http_status, const char* curl_message, const CaCertificates& certificates) {
  if (code == CURLE_HTTP_RETURNED_ERROR || (code == CURLE_OK && http_status >= 400)) {
    std::string reason = "HTTP " + std::to_string(http_status);
    if (http_status == 416) return {Verdict::restart, reason + " (range not satisfiable)"};
    return {http_status >= 500 ? Verdict::retry : Verdict::fatal, reason};
  }
  std::string reason = curl_message && *curl_message ? curl_message : curl_easy_strerror(code);
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return {Verdict::retry, reason};
    case CURLE_OPERATION_TIMEDOUT:
      return {Verdict::retry, reason +
                                  " (each transfer has a deadline, CUDAENV_DOWNLOAD_TIMEOUT, and ends when "
                                  "slower than 1 kB/s for 30 s)"};
    case CURLE_RANGE_ERROR: return {Verdict::restart, reason + " (the server cannot resume)"};
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE: return {Verdict::fatal, reason + " (" + ca_certificates_note(certificates) + ")"};
    default: return {Verdict::fatal, reason};
  }
}

std::chrono::milliseconds backoff(const DownloadOptions& options, int failed_tries) {
  return options.first_backoff * (1 << std::max(0, failed_tries - 1));
}

void set_common_options(CURL* curl, const std::string& url, const DownloadOptions& options, std::chrono::milliseconds deadline) {
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, options.low_speed_seconds);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<std::int64_t>(1, deadline.count())));
  curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, static_cast<long>(kMostPiece));
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "cudaenv");
  const CaCertificates& ca = options.fetch.certificates;
  if (!ca.file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, ca.file.c_str());
  if (!ca.dirs.empty()) curl_easy_setopt(curl, CURLOPT_CAPATH, ca.dirs.c_str());
}

std::uintmax_t file_size_or_zero(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uintmax_t>(st.st_size) : 0;
}

bool file_exists(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// libcurl hands a body over in pieces of 16 kB; the .part file gets them in writes of up to
// 256 KiB, or what came within 20 ms on a slower link: on loopback a sixteenth of the system
// calls, and of the wakes of the extraction that reads the file. What a kill -9 loses is what
// 20 ms brought.
constexpr size_t kWriteSize = 256 << 10;
constexpr std::chrono::milliseconds kWriteAfter{20};

// One archive's transfer state across tries.
struct Transfer {
  const DownloadJob* job = nullptr;
  size_t index = 0;
  int failed_tries = 0;
  Clock::time_point not_before{};
  bool done = false;
  bool active = false;
  CURL* curl = nullptr;
  int fd = -1;
  std::uint64_t offset = 0;             // bytes received, in order from byte 0
  std::uint64_t part_end = 0;           // of those, in the .part file
  bool extend_part = true;              // whether the .part file grows with the bytes that come
  std::uint64_t handed_over = 0;        // of those, handed to the extraction
  std::vector<char> unwritten;          // the last bytes received, not yet written (write_out)
  Clock::time_point unwritten_since{};  // when the first of them came
  std::optional<Sha256> hash;
  bool paused = false;  // its extraction lags: the link goes to the other transfers
  // After a transfer that had to start again from byte 0 (the server cannot resume): the bytes
  // up to `replay_until` were read by the extraction already, so they must come again the same
  // (sha256 `replay_sha256`) before more is handed on.
  bool from_zero = false;
  bool started_once = false;
  std::uint64_t replay_until = 0;
  std::string replay_sha256;
  bool replay_differs = false;
  std::string overflow;     // set when the body outgrows the manifest's size
  std::string write_error;  // set when the .part file cannot be written
  bool disk_full = false;   // ... because the disk or quota is full
  char curl_error[CURL_ERROR_SIZE] = {};
  ProgressReporter* progress = nullptr;
  const DownloadOptions* options = nullptr;
  CURLM* multi = nullptr;

  // Writes `unwritten` to the .part file where it extends it, and hands its new bytes to the
  // extraction; false, with write_error set, when it cannot write.
  bool write_out() {
    std::uint64_t at = offset - unwritten.size();
    // Bytes below part_end come again after a transfer from byte 0, and only once they matched
    // (hash_body) do more come: the file has them already.
    if (extend_part && at <= part_end && offset > part_end) {
      size_t from = static_cast<size_t>(part_end - at);
      size_t written = from;
      while (written < unwritten.size()) {
        ssize_t n = ::pwrite(fd, unwritten.data() + written, unwritten.size() - written, static_cast<off_t>(at + written));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          disk_full = errno == ENOSPC || errno == EDQUOT || errno == EFBIG;
          write_error = std::strerror(errno);
          return false;
        }
        written += static_cast<size_t>(n);
      }
      part_end = offset;
    }
    if (job->arriving && replay_until == 0) {
      if (!job->in_memory) {
        job->arriving->written(part_end);
      } else if (offset > handed_over) {
        if (at < handed_over)
          unwritten.erase(unwritten.begin(), unwritten.begin() + static_cast<std::ptrdiff_t>(handed_over - at));
        job->arriving->arrived(std::move(unwritten));
        handed_over = offset;
        unwritten = job->arriving->spare();
      }
    }
    unwritten.clear();
    unwritten.reserve(kWriteSize + kMostPiece);
    return true;
  }

  void close_file() {
    if (fd >= 0 && write_error.empty()) write_out();
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// The most of an archive that may wait, downloaded and not yet read by its extraction, before its
// transfer pauses (and the least before it goes on: half of it). Each archive then arrives no
// faster than it unpacks, and the link goes to the archives whose extraction keeps up, so when
// the last byte arrives only a few MB are left to unpack.
constexpr std::uint64_t kMostUnread = 4 << 20;

// The body's bytes into the hash, checking a replayed prefix (Transfer::replay_until) on the way.
bool hash_body(Transfer& t, const char* data, size_t bytes) {
  if (t.replay_until > t.offset && t.offset + bytes >= t.replay_until) {
    size_t head = static_cast<size_t>(t.replay_until - t.offset);
    t.hash->update(data, head);
    if (t.hash->copy().finish() != t.replay_sha256) {
      t.replay_differs = true;
      return false;
    }
    t.replay_until = 0;
    data += head;
    bytes -= head;
  }
  t.hash->update(data, bytes);
  return true;
}

// A paused transfer goes on once its extraction has read half of what waited: the reader then
// wakes the downloader's poll, which no socket does.
void wake_when_read(Transfer& t) {
  t.job->arriving->wake_below(kMostUnread / 2, [multi = t.multi] { curl_multi_wakeup(multi); });
}

size_t write_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t bytes = size * count;
  if (t->job->arriving && t->job->arriving->backlog() >= kMostUnread) {
    t->paused = true;
    // The link outruns the extraction. A later run would unpack the file's bytes again before
    // it gets further, and on this link downloading them again is no slower: writing them cost
    // the install a fifth of its system time (docs/install.md).
    if (t->job->in_memory && t->job->only_to_resume) t->extend_part = false;
    wake_when_read(*t);
    return CURL_WRITEFUNC_PAUSE;  // libcurl hands the same bytes again once resumed
  }
  if (t->offset + bytes > t->job->archive.size) {
    t->overflow = "the server sent more than the " + std::to_string(t->job->archive.size) + " bytes " +
                  source_of(t->job->archive.url).listing + " gives";
    return 0;
  }
  if (!t->write_error.empty() || !hash_body(*t, data, bytes)) return 0;
  if (t->unwritten.empty()) t->unwritten_since = Clock::now();
  t->unwritten.insert(t->unwritten.end(), data, data + bytes);
  t->offset += bytes;
  if (t->unwritten.size() >= kWriteSize && !t->write_out()) return 0;
  return bytes;
}

bool wanted(const Transfer& t) { return !t.options->wanted || t.options->wanted(t.index); }

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->options->should_stop && t->options->should_stop()) return 1;
  if (!wanted(*t)) return 1;
  t->progress->download_progress(t->index, t->offset);
  return 0;
}

Error sha_mismatch(const DownloadJob& job, const std::string& actual) {
  Source source = source_of(job.archive.url);
  return make_error(job.archive.name + ": " + job.archive.url + " has sha256 " + actual + " but " + source.listing + " says " +
                        job.archive.sha256,
                    std::string("the file was deleted; ") + source.server + " serves a damaged or altered " + source.file +
                        ": run the same command again, or use another " + source.option);
}

class Downloader {
 public:
  Downloader(const std::vector<DownloadJob>& jobs, const DownloadOptions& options, ProgressReporter& progress)
      : options_(options), progress_(progress), transfers_(jobs.size()) {
    for (size_t i = 0; i < jobs.size(); ++i) {
      transfers_[i].job = &jobs[i];
      transfers_[i].index = i;
      transfers_[i].progress = &progress;
      transfers_[i].options = &options;
      order_.push_back(i);
    }
    // Largest first, the small ones last: an archive unpacks as it arrives, so the largest,
    // whose decoding takes longest, must begin first, and what is left when the link is done is
    // small. (A transfer from the small end beside them took a decoder and a transfer ahead of
    // larger archives and left one of those to decode alone at the end: bench/install.sh.)
    std::stable_sort(order_.begin(), order_.end(),
                     [&](size_t a, size_t b) { return jobs[a].archive.size > jobs[b].archive.size; });
  }

  ~Downloader() {
    for (Transfer& t : transfers_) {
      stop(t);
      // A reader that reads on after a failed download must not wake the handle freed below.
      if (t.job->arriving) t.job->arriving->wake_below(0, {});
    }
    if (multi_) curl_multi_cleanup(multi_);
  }

  Status run() {
    init_curl_once();
    multi_ = curl_multi_init();
    for (Transfer& t : transfers_) t.multi = multi_;
    for (Transfer& t : transfers_) CUDAENV_TRY(reuse_complete_file(t));
    CUDAENV_TRY(check_space_for_downloads());
    while (true) {
      if (options_.should_stop && options_.should_stop()) return interrupted_error();
      drop_unwanted();
      CUDAENV_TRY(start_ready_transfers());
      if (remaining() == 0) return ok_status();
      resume_paused();
      int running = 0;
      curl_multi_perform(multi_, &running);
      write_out_waiting();
      size_t active = active_count();
      CUDAENV_TRY(collect_finished());
      // A transfer that just ended leaves its job free: the next starts now, not after a poll
      // that has nothing left to wait for.
      if (active_count() < active) continue;
      curl_multi_poll(multi_, nullptr, 0, 100, nullptr);
    }
  }

 private:
  size_t remaining() const {
    size_t n = 0;
    for (const Transfer& t : transfers_) n += !t.done;
    return n;
  }

  // The bytes a slow transfer received a while ago go to its file and its extraction.
  void write_out_waiting() {
    auto now = Clock::now();
    for (Transfer& t : transfers_) {
      if (t.active && !t.unwritten.empty() && t.write_error.empty() && now - t.unwritten_since >= kWriteAfter) t.write_out();
    }
  }

  void drop_unwanted() {
    for (Transfer& t : transfers_) {
      if (t.done || wanted(t)) continue;
      stop(t);
      t.done = true;
    }
  }

  // Transfers paused for their extraction go on once it has read half of what waited. One that
  // woke the poll early (its reader gave bytes back) waits for the next wake.
  void resume_paused() {
    for (Transfer& t : transfers_) {
      if (!t.active || !t.paused) continue;
      if (t.job->arriving->backlog() >= kMostUnread / 2) {
        wake_when_read(t);
        continue;
      }
      t.paused = false;
      curl_easy_pause(t.curl, CURLPAUSE_CONT);  // may deliver (and pause) at once
    }
  }

  size_t active_count() const {
    size_t n = 0;
    for (const Transfer& t : transfers_) n += t.active;
    return n;
  }

  // An archive already complete (kept with --keep-downloads, or finished before a kill)
  // is verified in place instead of fetched again.
  Status reuse_complete_file(Transfer& t) {
    const DownloadJob& job = *t.job;
    for (const fs::path& candidate : {job.destination, part_path(job.destination)}) {
      if (!file_exists(candidate)) continue;
      std::uintmax_t size = file_size_or_zero(candidate);
      if (size < job.archive.size && candidate != job.destination) return ok_status();  // a partial: resume it
      if (size == job.archive.size) {
        Sha256 hash;
        CUDAENV_TRY(hash_file_prefix(candidate, hash));
        if (hash.finish() == job.archive.sha256) {
          if (candidate != job.destination && ::rename(candidate.c_str(), job.destination.c_str()) != 0) {
            return make_error("cannot rename " + candidate.string() + ": " + std::strerror(errno));
          }
          t.done = true;
          progress_.verified(t.index, true);
          if (job.arriving) {
            job.arriving->begin(job.destination, job.archive.size);
            job.arriving->verified();
          }
          return ok_status();
        }
      }
      ::unlink(candidate.c_str());  // wrong size or content: start over
    }
    return ok_status();
  }

  // What is still to come must fit beside what is already there.
  Status check_space_for_downloads() const {
    std::vector<SpaceNeed> needs = options_.also_needed;
    for (const Transfer& t : transfers_) {
      if (t.done) continue;
      fs::path part = part_path(t.job->destination);
      std::uint64_t have = std::min<std::uint64_t>(file_size_or_zero(part), t.job->archive.size);
      needs.push_back(SpaceNeed{.dir = part.parent_path(), .bytes = t.job->archive.size - have});
    }
    return check_free_space(needs, options_.also_needed.empty() ? "the downloads" : "the downloads and unpacked files");
  }

  Status start_ready_transfers() {
    auto now = Clock::now();
    auto ready = [&](const Transfer& t) { return !t.done && !t.active && t.not_before <= now && wanted(t); };
    size_t jobs = static_cast<size_t>(std::max(1, options_.jobs));
    for (size_t i : order_) {
      Transfer& t = transfers_[i];
      if (active_count() >= jobs) break;
      if (!ready(t)) continue;
      CUDAENV_TRY(start(t));
    }
    return ok_status();
  }

  Status start(Transfer& t) {
    const DownloadJob& job = *t.job;
    fs::path part = part_path(job.destination);
    t.fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (t.fd < 0) {
      return make_error(job.archive.name + ": cannot write " + part.string() + ": " + std::strerror(errno),
                        "check that " + part.parent_path().string() + " is writable and has space");
    }
    // The first time, the transfer goes on after the bytes an earlier run left in the file. A
    // later try goes on after the bytes received, with their hash; from byte 0 again, the bytes
    // already received must come again (hash_body).
    if (!t.started_once) {
      // The extraction reads these bytes from the file (ArrivingFile::begin).
      t.offset = t.part_end = t.handed_over = file_size_or_zero(part);
      t.hash.emplace();
      if (t.offset > 0) CUDAENV_TRY(hash_file_prefix(part, *t.hash, t.offset));
    } else if (t.from_zero) {
      t.offset = 0;
      t.hash.emplace();
    }
    t.from_zero = false;
    t.started_once = true;
    t.paused = false;
    t.overflow.clear();
    t.write_error.clear();
    t.curl_error[0] = '\0';
    CUDAENV_TRY_ASSIGN(auto deadline, transfer_deadline(job.archive.size, options_.fetch.timeouts));
    t.curl = curl_easy_init();
    set_common_options(t.curl, job.archive.url, options_, deadline);
    curl_easy_setopt(t.curl, CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(t.curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(t.curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(t.curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(t.curl, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(t.curl, CURLOPT_ERRORBUFFER, t.curl_error);
    curl_easy_setopt(t.curl, CURLOPT_PRIVATE, &t);
    // One connection per archive (HTTP/1.1, which the release's libcurl alone speaks): a transfer
    // paused for its extraction stops reading its own socket, so the kernel's flow control holds
    // the link back. Multiplexed over one HTTP/2 connection (Debian's libcurl, from PyPI), the
    // other streams keep the connection read and libcurl holds the paused streams' bytes: issue
    // 37 measured 81-126 MB of peak RSS from PyPI, against 54 MiB from a loopback mirror.
    curl_easy_setopt(t.curl, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    if (t.offset > 0) curl_easy_setopt(t.curl, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(t.offset));
    curl_multi_add_handle(multi_, t.curl);
    t.active = true;
    progress_.download_started(t.index, job.archive.url, t.offset);
    // The extraction reads what is there already (a resumed download) while the rest arrives.
    if (job.arriving) job.arriving->begin(part, t.offset);
    return ok_status();
  }

  void stop(Transfer& t) {
    if (t.curl) {
      curl_multi_remove_handle(multi_, t.curl);
      curl_easy_cleanup(t.curl);
      t.curl = nullptr;
    }
    t.close_file();
    t.active = false;
  }

  Status collect_finished() {
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_, &queued)) {
      if (message->msg != CURLMSG_DONE) continue;
      Transfer* t = nullptr;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
      CURLcode code = message->data.result;
      long http_status = 0;
      curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &http_status);
      std::string curl_message = t->curl_error;
      stop(*t);
      CUDAENV_TRY(finish(*t, code, http_status, curl_message));
    }
    return ok_status();
  }

  Status finish(Transfer& t, CURLcode code, long http_status, const std::string& curl_message) {
    const DownloadJob& job = *t.job;
    fs::path part = part_path(job.destination);
    if (options_.should_stop && options_.should_stop()) return interrupted_error();
    if (!wanted(t)) {
      t.done = true;
      return ok_status();
    }
    if (t.replay_differs) {
      ::unlink(part.c_str());
      return make_error(
          job.archive.name + ": " + job.archive.url + " sent other bytes when its download started again from the first byte",
          "the file was deleted; the server changes the file while it is downloaded: run the same command "
          "again, or use another " +
              std::string(source_of(job.archive.url).option));
    }
    if (!t.overflow.empty()) {
      ::unlink(part.c_str());
      return make_error(job.archive.name + ": " + job.archive.url + ": " + t.overflow,
                        "the file was deleted; the server sends a different file than " +
                            std::string(source_of(job.archive.url).listing) + " names: " + hint_for(job.archive.url));
    }
    if (!t.write_error.empty()) {
      // A .part that filled the disk would keep it full: remove it, so space is back at once.
      if (t.disk_full) ::unlink(part.c_str());
      return make_error(job.archive.name + ": cannot write " + part.string() + " while downloading " + job.archive.url + ": " +
                            t.write_error + (t.disk_full ? " (the partial file was removed)" : ""),
                        "free space under " + part.parent_path().string() + " and run the same command again");
    }
    if (code == CURLE_OK && http_status < 400) {
      if (t.offset == job.archive.size) {
        std::string actual = t.hash->finish();
        if (actual != job.archive.sha256) {
          ::unlink(part.c_str());
          return sha_mismatch(job, actual);
        }
        // A .part that stopped growing stays as it is: the start of the file, for a later run
        // when this install fails after all.
        if (t.part_end == job.archive.size && ::rename(part.c_str(), job.destination.c_str()) != 0) {
          return make_error(job.archive.name + ": cannot rename " + part.string() + ": " + std::strerror(errno));
        }
        t.done = true;
        progress_.verified(t.index, false);
        if (job.arriving) job.arriving->verified(t.part_end == job.archive.size ? job.destination : fs::path());
        return ok_status();
      }
      return retry_or_fail(t, Failure{Verdict::retry, "the body ended after " + std::to_string(t.offset) + " of " +
                                                          std::to_string(job.archive.size) + " bytes"});
    }
    return retry_or_fail(t, classify(code, http_status, curl_message.c_str(), options_.fetch.certificates));
  }

  Status retry_or_fail(Transfer& t, const Failure& failure) {
    const DownloadJob& job = *t.job;
    fs::path part = part_path(job.destination);
    if (failure.verdict == Verdict::fatal) {
      return make_error(job.archive.name + ": cannot download " + job.archive.url + ": " + failure.reason,
                        hint_for(job.archive.url));
    }
    if (failure.verdict == Verdict::restart) {
      // From byte 0 again, over the bytes on disk, which the extraction may have read already.
      if (t.replay_until < t.offset) {
        t.replay_until = t.offset;
        t.replay_sha256 = t.hash->finish();
      }
      t.from_zero = true;
    }
    ++t.failed_tries;
    if (t.failed_tries >= options_.tries) {
      return make_error(job.archive.name + ": cannot download " + job.archive.url + " after " + std::to_string(options_.tries) +
                            " tries: " + failure.reason,
                        "the partial download is kept in " + part.string() +
                            "; run the same command again to resume, or use another " + source_of(job.archive.url).option);
    }
    auto delay = backoff(options_, t.failed_tries);
    t.not_before = Clock::now() + delay;
    progress_.retrying(t.index, failure.reason, t.failed_tries + 1, options_.tries, delay);
    return ok_status();
  }

  const DownloadOptions& options_;
  ProgressReporter& progress_;
  std::vector<Transfer> transfers_;
  std::vector<size_t> order_;  // indices into transfers_, largest archive first
  CURLM* multi_ = nullptr;
};

int stop_requested(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* options = static_cast<const DownloadOptions*>(user);
  return options->should_stop && options->should_stop() ? 1 : 0;
}

struct TextBody {
  std::string text;
  bool too_big = false;
};

size_t append_text(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<TextBody*>(user);
  if (body->text.size() + size * count > kMaxTextBytes) {
    body->too_big = true;
    return 0;
  }
  body->text.append(data, size * count);
  return size * count;
}

Error too_big_text(const std::string& url) {
  return make_error(url + " is larger than " + std::to_string(kMaxTextBytes >> 20) +
                        " MiB, far more than any manifest, listing or index: refused",
                    "check the URL; the server sends something else than NVIDIA's redist files (broken or hostile)");
}

}  // namespace

namespace {

Result<std::chrono::seconds> seconds_of(const Setting& setting, const char* variable, const char* what, const char* example) {
  const std::string& text = setting.value;
  long seconds = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec != std::errc() || end != text.data() + text.size() || seconds < 1 || seconds > 7 * 24 * 3600) {
    return make_error(
        std::string(variable) + "='" + text + "' is not a number of seconds",
        std::string("set it to the longest time ") + what + " may take, e.g. " + variable + "=" + example + ", or unset it");
  }
  return std::chrono::seconds(seconds);
}

// One deadline across every try at a text download: a server that trickles just above the
// low-speed rule, or fails slowly, still ends within it.
class TextDeadline {
 public:
  explicit TextDeadline(std::chrono::seconds limit) : limit_(limit), end_(Clock::now() + limit) {}

  std::chrono::milliseconds left() const { return std::chrono::duration_cast<std::chrono::milliseconds>(end_ - Clock::now()); }
  // Whether another try may still start after `pause`.
  bool allows(std::chrono::milliseconds pause) const { return left() > pause; }
  // A failure, as one of a text download's tries met it.
  Failure judged(CURLcode code, long http_status, const char* curl_message, const CaCertificates& certificates) const {
    if (code != CURLE_OPERATION_TIMEDOUT) return classify(code, http_status, curl_message, certificates);
    // Before the deadline, curl's own words say which rule ended the try (too slow, no connection).
    // curl's timer may end the try a few milliseconds before this clock says the deadline passed.
    if (left() > std::chrono::milliseconds(100)) return {Verdict::retry, *curl_message ? curl_message : "timed out"};
    return {Verdict::fatal, passed()};
  }
  std::string passed() const {
    return "no complete answer within " + std::to_string(limit_.count()) + " s, the deadline of a text download across " +
           "all its tries (" + kTextTimeoutSetting.variable + ")";
  }

 private:
  std::chrono::seconds limit_;
  Clock::time_point end_;
};

// Whether a failed try is the last, and why: the verdict, the tries or the deadline.
std::optional<std::string> last_try(const Failure& failure, int attempt, const DownloadOptions& options,
                                    const TextDeadline& deadline) {
  if (failure.verdict == Verdict::fatal || attempt >= options.tries) return failure.reason;
  if (!deadline.allows(backoff(options, attempt))) return failure.reason + "; " + deadline.passed();
  return std::nullopt;
}

}  // namespace

Result<std::chrono::seconds> transfer_deadline(std::uint64_t size, const FetchTimeouts& timeouts) {
  if (timeouts.transfer.kind != OriginKind::fallback) {
    return seconds_of(timeouts.transfer, kDownloadTimeoutSetting.variable, "one transfer", "3600");
  }
  return std::chrono::seconds(600 + size / (256 * 1024));
}

Result<std::chrono::seconds> text_timeout(const FetchTimeouts& timeouts) {
  return seconds_of(timeouts.text, kTextTimeoutSetting.variable, "a text download, all its tries together", "300");
}

Error interrupted_error() {
  return make_error("interrupted",
                    "the staging folder was removed; partial downloads are kept in the cache and "
                    "resume when you run the same command again",
                    ErrorKind::interrupted);
}

Status download_all(const std::vector<DownloadJob>& jobs, const DownloadOptions& options, ProgressReporter& progress) {
  Downloader downloader(jobs, options, progress);
  return downloader.run();
}

namespace {

struct HeadAnswer {
  long http_status = 0;
  curl_off_t length = -1;
};

// A HEAD request under a text download's retry rules and deadline. A success, or an HTTP status
// `final_status` accepts (404: the file is not there), is an answer; anything else is retried
// or is the error "cannot <what> URL: why".
Result<HeadAnswer> head_request(const std::string& url, const DownloadOptions& options, const std::string& what,
                                const std::function<bool(long)>& final_status) {
  init_curl_once();
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  CUDAENV_TRY_ASSIGN(auto limit, text_timeout(options.fetch.timeouts));
  TextDeadline deadline(limit);
  for (int attempt = 1;; ++attempt) {
    char curl_error[CURL_ERROR_SIZE] = {};
    curl_easy_reset(curl.get());
    set_common_options(curl.get(), url, options, deadline.left());
    curl_easy_setopt(curl.get(), CURLOPT_NOBODY, 1L);
    curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, curl_error);
    CURLcode code = curl_easy_perform(curl.get());
    if (options.should_stop && options.should_stop()) return interrupted_error();
    HeadAnswer answer;
    curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &answer.http_status);
    // A file:// URL whose file is not there answers as a server's 404 does.
    if (code == CURLE_FILE_COULDNT_READ_FILE) answer.http_status = 404;
    bool answered = code == CURLE_OK || code == CURLE_HTTP_RETURNED_ERROR || code == CURLE_FILE_COULDNT_READ_FILE;
    if (answered && (answer.http_status < 400 || final_status(answer.http_status))) {
      curl_easy_getinfo(curl.get(), CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &answer.length);
      return answer;
    }
    if (auto reason = last_try(deadline.judged(code, answer.http_status, curl_error, options.fetch.certificates), attempt,
                               options, deadline)) {
      return make_error("cannot " + what + " " + url + ": " + *reason, kIndexHint);
    }
    std::this_thread::sleep_for(backoff(options, attempt));
  }
}

}  // namespace

Result<std::uint64_t> fetch_size(const std::string& url, const DownloadOptions& options) {
  CUDAENV_TRY_ASSIGN(auto answer, head_request(url, options, "read the size of", [](long) { return false; }));
  if (answer.length > 0) return static_cast<std::uint64_t>(answer.length);
  return make_error(url + " does not say its size (no Content-Length), and its index page gives none",
                    "use an index that serves PEP 691 JSON pages (they list sizes) or sends Content-Length");
}

Result<bool> url_exists(const std::string& url, const DownloadOptions& options) {
  CUDAENV_TRY_ASSIGN(auto answer, head_request(url, options, "check", not_there));
  return !not_there(answer.http_status);
}

Result<std::string> fetch_text(const std::string& url, const DownloadOptions& options, const std::string& accept) {
  init_curl_once();
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  std::string header = "Accept: " + accept;
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(
      accept.empty() ? nullptr : curl_slist_append(nullptr, header.c_str()), curl_slist_free_all);
  CUDAENV_TRY_ASSIGN(auto limit, text_timeout(options.fetch.timeouts));
  TextDeadline deadline(limit);
  for (int attempt = 1;; ++attempt) {
    TextBody body;
    char curl_error[CURL_ERROR_SIZE] = {};
    curl_easy_reset(curl.get());
    set_common_options(curl.get(), url, options, deadline.left());
    if (headers) curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(curl.get(), CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(kMaxTextBytes));
    curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, append_text);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, curl_error);
    curl_easy_setopt(curl.get(), CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl.get(), CURLOPT_XFERINFOFUNCTION, stop_requested);
    curl_easy_setopt(curl.get(), CURLOPT_XFERINFODATA, &options);
    CURLcode code = curl_easy_perform(curl.get());
    if (options.should_stop && options.should_stop()) return interrupted_error();
    long http_status = 0;
    curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &http_status);
    if (body.too_big || code == CURLE_FILESIZE_EXCEEDED) return too_big_text(url);
    if (code == CURLE_OK && http_status < 400) return std::move(body.text);
    if (auto reason =
            last_try(deadline.judged(code, http_status, curl_error, options.fetch.certificates), attempt, options, deadline)) {
      // Only a redist folder's manifest names a CUDA release; an index page or a wheel's metadata
      // comes from --index-url.
      bool manifest = fs::path(strip_url_query(url)).filename().string().starts_with("redistrib_");
      std::string hint = http_status == 404 && manifest
                             ? "is that a real CUDA release? `cudaenv list-remote` lists them; or " + std::string(kMirrorHint)
                             : std::string(hint_for(url));
      return make_error("cannot download " + url + ": " + *reason, hint,
                        not_there(http_status) ? ErrorKind::not_on_server : ErrorKind::failure);
    }
    if (options.should_stop && options.should_stop()) return interrupted_error();
    std::this_thread::sleep_for(backoff(options, attempt));
  }
}

}  // namespace cudaenv
