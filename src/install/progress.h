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
  // `bars`: draw bars (wants_colour, util/output.h); else plain lines.
  ProgressReporter(std::FILE* out, bool bars);
  ~ProgressReporter();

  // Sets the rows the bars show: one per component, in plan order, and a total row named
  // after `title` (e.g. "CUDA 12.4.1"), so each version of a multi-version run keeps its own.
  void begin(const std::vector<std::string>& components, const std::vector<std::uint64_t>& sizes, const std::string& title = "");
  void note(const std::string& message);
  void download_started(size_t index, const std::string& url, std::uint64_t resumed_from);
  void download_progress(size_t index, std::uint64_t bytes_done);
  void retrying(size_t index, const std::string& reason, int next_try, int tries, std::chrono::milliseconds delay);
  void verified(size_t index, bool from_cache);
  void extracting(size_t index);
  void extracted(size_t index);
  // Leaves the last drawing of this run's bars on screen; later notes are plain lines.
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

  void line(const std::string& text);     // caller holds mutex_
  void redraw(bool force);                // caller holds mutex_
  void move_above_drawing(size_t width);  // caller holds mutex_

  std::FILE* out_;
  bool bars_;
  std::mutex mutex_;
  std::vector<Row> rows_;
  std::string title_;
  std::vector<size_t> drawn_;  // the length of each row on screen below the cursor's line
  std::chrono::steady_clock::time_point begun_{};
  std::chrono::steady_clock::time_point last_draw_{};
};

// "44.5 MB", "980 kB", "12 B"
std::string human_bytes(std::uint64_t bytes);

struct ProgressRow {
  std::string name;
  std::uint64_t done = 0;
  std::uint64_t size = 0;
  double rate = 0;    // bytes per second; 0: not downloading
  std::string state;  // "downloading", "done", "1.2 MB fetched", ...
};

// One row of the bars, shorter than `width` columns so a terminal never wraps it: the name
// in `name_width` columns (cut at a word boundary, marked ".."), a bar, the sizes, speed and
// ETA, the state. What does not fit goes, least useful first: bar width, speed, bar, sizes.
std::string layout_progress_row(const ProgressRow& row, size_t name_width, size_t width);

// A label in at most `width` columns, cut after a whole word ('_' or '-' separated).
std::string fit_label(const std::string& label, size_t width);

}  // namespace cudaenv
