#pragma once
// What an install tells people while it runs: per-component and total progress bars on a
// terminal, one plain line per event otherwise (logs, CI). Thread-safe: extraction workers
// report from their own threads.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace cudaenv {

class ProgressReporter {
 public:
  // `bars`: draw bars (stderr is a terminal and NO_COLOR is unset); else plain lines.
  ProgressReporter(std::FILE* out, bool bars);
  ~ProgressReporter();

  // Sets the rows the bars show: one per component, in plan order.
  void begin(const std::vector<std::string>& components, const std::vector<std::uint64_t>& sizes);
  void note(const std::string& message);
  void download_started(size_t index, const std::string& url, std::uint64_t resumed_from);
  void download_progress(size_t index, std::uint64_t bytes_done);
  void retrying(size_t index, const std::string& reason, int next_try, int tries, std::chrono::milliseconds delay);
  void verified(size_t index, bool from_cache);
  void extracting(size_t index);
  void extracted(size_t index);
  // Stops drawing bars; later notes are plain lines.
  void end();

 private:
  struct Row {
    std::string component;
    std::uint64_t size = 0;
    std::uint64_t done = 0;
    std::uint64_t resumed_from = 0;
    std::string state = "waiting";
    std::chrono::steady_clock::time_point started{};
  };

  void line(const std::string& text);  // caller holds mutex_
  void redraw(bool force);             // caller holds mutex_
  std::string bar_line(const std::string& name, std::uint64_t done, std::uint64_t size, double rate,
                       const std::string& state) const;

  std::FILE* out_;
  bool bars_;
  std::mutex mutex_;
  std::vector<Row> rows_;
  size_t drawn_ = 0;  // rows currently on screen below the cursor's line
  std::chrono::steady_clock::time_point begun_{};
  std::chrono::steady_clock::time_point last_draw_{};
};

// "44.5 MB", "980 kB", "12 B"
std::string human_bytes(std::uint64_t bytes);

}  // namespace cudaenv
