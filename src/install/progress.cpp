#include "install/progress.h"

#include <algorithm>
#include <cmath>

#include "util/strings.h"

namespace cudaenv {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string format_eta(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 99 * 3600) return "--:--";
  int s = static_cast<int>(seconds + 0.5);
  char text[16];
  std::snprintf(text, sizeof text, "%02d:%02d", s / 60, s % 60);
  return text;
}

}  // namespace

std::string human_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1000 && unit < 4) {
    value /= 1000;
    ++unit;
  }
  char text[32];
  if (unit == 0) std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  else std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

ProgressReporter::ProgressReporter(std::FILE* out, bool bars) : out_(out), bars_(bars) {}

ProgressReporter::~ProgressReporter() { end(); }

void ProgressReporter::begin(const std::vector<std::string>& components, const std::vector<std::uint64_t>& sizes) {
  std::lock_guard lock(mutex_);
  rows_.clear();
  for (size_t i = 0; i < components.size(); ++i) rows_.push_back(Row{components[i], sizes[i]});
  begun_ = Clock::now();
  redraw(true);
}

void ProgressReporter::note(const std::string& message) {
  std::lock_guard lock(mutex_);
  line(message);
}

void ProgressReporter::download_started(size_t index, const std::string& url, std::uint64_t resumed_from) {
  std::lock_guard lock(mutex_);
  Row& row = rows_[index];
  row.state = "downloading";
  row.done = row.resumed_from = resumed_from;
  row.started = Clock::now();
  if (bars_) return redraw(true);
  std::string text = "downloading " + row.component + " (" + human_bytes(row.size) + ") from " + url;
  if (resumed_from > 0) text += ", resuming at " + human_bytes(resumed_from);
  line(text);
}

void ProgressReporter::download_progress(size_t index, std::uint64_t bytes_done) {
  std::lock_guard lock(mutex_);
  rows_[index].done = bytes_done;
  if (bars_) redraw(false);
}

void ProgressReporter::retrying(size_t index, const std::string& reason, int next_try, int tries,
                                std::chrono::milliseconds delay) {
  std::lock_guard lock(mutex_);
  Row& row = rows_[index];
  row.state = "retry " + std::to_string(next_try) + "/" + std::to_string(tries);
  line(row.component + ": " + reason + "; try " + std::to_string(next_try) + " of " + std::to_string(tries) +
       " in " + std::to_string(delay.count()) + " ms");
}

void ProgressReporter::verified(size_t index, bool from_cache) {
  std::lock_guard lock(mutex_);
  Row& row = rows_[index];
  row.done = row.size;
  row.state = "verified";
  if (bars_) return redraw(true);
  if (from_cache) {
    line("using cached " + row.component + " (" + human_bytes(row.size) + ", sha256 verified)");
    return;
  }
  double seconds = std::max(seconds_since(row.started), 1e-3);
  char rate[64];
  std::snprintf(rate, sizeof rate, " in %.1f s, %s/s", seconds,
                human_bytes(static_cast<std::uint64_t>((row.size - row.resumed_from) / seconds)).c_str());
  line("downloaded " + row.component + " (" + human_bytes(row.size) + rate + "), sha256 verified");
}

void ProgressReporter::extracting(size_t index) {
  std::lock_guard lock(mutex_);
  rows_[index].state = "extracting";
  if (bars_) redraw(true);
  else line("extracting " + rows_[index].component);
}

void ProgressReporter::extracted(size_t index) {
  std::lock_guard lock(mutex_);
  rows_[index].state = "done";
  if (bars_) redraw(true);
  else line("extracted " + rows_[index].component);
}

void ProgressReporter::end() {
  std::lock_guard lock(mutex_);
  if (bars_ && !rows_.empty()) redraw(true);
  bars_ = false;
  drawn_ = 0;
}

void ProgressReporter::line(const std::string& text) {
  if (bars_ && drawn_ > 0) {
    // Print above the bars, then draw them again below.
    std::fprintf(out_, "\033[%zuA\r\033[J", drawn_);
    drawn_ = 0;
    std::fprintf(out_, "%s\n", terminal_safe(text).c_str());
    redraw(true);
    return;
  }
  std::fprintf(out_, "%s\n", terminal_safe(text).c_str());
  std::fflush(out_);
}

std::string ProgressReporter::bar_line(const std::string& name, std::uint64_t done, std::uint64_t size, double rate,
                                       const std::string& state) const {
  constexpr int kWidth = 24;
  double fraction = size ? std::min(1.0, static_cast<double>(done) / static_cast<double>(size)) : 1.0;
  int filled = static_cast<int>(fraction * kWidth);
  std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '-');
  char speed[64] = "";
  if (rate > 0 && done < size) {
    std::snprintf(speed, sizeof speed, "%9s/s ETA %s", human_bytes(static_cast<std::uint64_t>(rate)).c_str(),
                  format_eta(static_cast<double>(size - done) / rate).c_str());
  }
  char text[256];
  std::snprintf(text, sizeof text, "%-20.20s [%s] %9s / %-9s %-23s %s", name.c_str(), bar.c_str(),
                human_bytes(done).c_str(), human_bytes(size).c_str(), speed, state.c_str());
  return text;
}

void ProgressReporter::redraw(bool force) {
  if (!bars_ || rows_.empty()) return;
  auto now = Clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  if (drawn_ > 0) std::fprintf(out_, "\033[%zuA\r", drawn_);
  std::uint64_t total_done = 0, total_size = 0, fresh = 0;
  for (const Row& row : rows_) {
    double elapsed = row.state == "downloading" ? seconds_since(row.started) : 0;
    double rate = elapsed > 0.2 ? static_cast<double>(row.done - row.resumed_from) / elapsed : 0;
    std::fprintf(out_, "\033[K%s\n", bar_line(terminal_safe(row.component), row.done, row.size, rate, row.state).c_str());
    total_done += row.done;
    total_size += row.size;
    fresh += row.done - row.resumed_from;
  }
  double elapsed = seconds_since(begun_);
  double rate = elapsed > 0.2 ? static_cast<double>(fresh) / elapsed : 0;
  std::fprintf(out_, "\033[K%s\n", bar_line("total", total_done, total_size, rate, "").c_str());
  drawn_ = rows_.size() + 1;
  std::fflush(out_);
}

}  // namespace cudaenv
