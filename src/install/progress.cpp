#include "install/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "util/strings.h"

namespace cudaenv {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string format_eta(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 99 * 3600) return "--:--";
  int s = static_cast<int>(seconds + 0.5);
  char text[16];
  std::snprintf(text, sizeof text, "%02d:%02d", s / 60, s % 60);
  return text;
}

// Asked at every redraw, so a resized terminal gets rows that fit at once.
size_t terminal_columns(std::FILE* out) {
  winsize size{};
  if (::ioctl(::fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

std::string padded(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

}  // namespace

std::string fit_label(const std::string& label, size_t width) {
  if (label.size() <= width) return label;
  if (width <= 2) return label.substr(0, width);
  size_t cut = label.find_last_of("_- ", width - 2);
  if (cut == std::string::npos || cut == 0) return label.substr(0, width - 2) + "..";
  return label.substr(0, cut) + "..";
}

std::string layout_progress_row(const ProgressRow& row, size_t name_width, size_t width) {
  size_t avail = width > 1 ? width - 1 : 1;
  std::string state = row.state;
  if (state.size() + 1 >= avail) return fit_label(state, avail);
  size_t name_room = std::min(name_width, avail - state.size() - 1);
  std::string name = padded(fit_label(row.name, name_room), name_room);
  size_t room = avail - name_room - 1 - state.size();

  char sizes[48];
  std::snprintf(sizes, sizeof sizes, "%9s / %-9s", human_bytes(row.done).c_str(), human_bytes(row.size).c_str());
  std::string speed;
  if (row.rate > 0 && row.done < row.size) {
    char text[48];
    std::snprintf(text, sizeof text, "%9s/s ETA %s", human_bytes(static_cast<std::uint64_t>(row.rate)).c_str(),
                  format_eta(static_cast<double>(row.size - row.done) / row.rate).c_str());
    speed = text;
  }
  constexpr size_t kSpeedWidth = 23, kMinBar = 6, kMaxBar = 24;
  bool with_sizes = room >= std::string_view(sizes).size() + 1;
  if (with_sizes) room -= std::string_view(sizes).size() + 1;
  bool with_speed = room >= kSpeedWidth + 1 + kMinBar + 3;
  if (with_speed) room -= kSpeedWidth + 1;
  size_t bar_width = room >= kMinBar + 3 ? std::min(kMaxBar, room - 3) : 0;

  std::string text = name + " ";
  if (bar_width > 0) {
    double fraction = row.size ? std::min(1.0, static_cast<double>(row.done) / static_cast<double>(row.size)) : 1.0;
    size_t filled = static_cast<size_t>(fraction * static_cast<double>(bar_width));
    text += "[" + std::string(filled, '#') + std::string(bar_width - filled, '-') + "] ";
  }
  if (with_sizes) text += std::string(sizes) + " ";
  if (with_speed) text += padded(speed, kSpeedWidth) + " ";
  return text + state;
}

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

void ProgressReporter::begin(const std::vector<std::string>& components, const std::vector<std::uint64_t>& sizes,
                             const std::string& title) {
  std::lock_guard lock(mutex_);
  rows_.clear();
  drawn_.clear();
  title_ = title;
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
  line(row.component + ": " + reason + "; try " + std::to_string(next_try) + " of " + std::to_string(tries) + " in " +
       std::to_string(delay.count()) + " ms");
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
  // The drawing stays as it is; the next run's begin() draws its own below it.
  rows_.clear();
  drawn_.clear();
}

void ProgressReporter::line(const std::string& text) {
  if (bars_ && !drawn_.empty()) {
    // Print above the bars, then draw them again below.
    move_above_drawing(terminal_columns(out_));
    std::fprintf(out_, "%s\n", terminal_safe(text).c_str());
    redraw(true);
    return;
  }
  std::fprintf(out_, "%s\n", terminal_safe(text).c_str());
  std::fflush(out_);
}

// Back to the first row drawn, clearing everything below. A terminal that reflows on a
// resize wraps each old row into ceil(length / width) lines; rows drawn at this width
// take one line each.
void ProgressReporter::move_above_drawing(size_t width) {
  size_t lines = 0;
  for (size_t length : drawn_) lines += std::max<size_t>(1, (length + width - 1) / width);
  if (lines > 0) std::fprintf(out_, "\033[%zuA\r\033[J", lines);
  drawn_.clear();
}

void ProgressReporter::redraw(bool force) {
  if (!bars_ || rows_.empty()) return;
  auto now = Clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  size_t width = terminal_columns(out_);
  move_above_drawing(width);
  std::string total_name = title_.empty() ? "total" : title_;
  size_t name_width = total_name.size();
  for (const Row& row : rows_) name_width = std::max(name_width, row.component.size());
  name_width = std::min<size_t>(name_width, 20);
  std::vector<std::string> lines;
  std::uint64_t total_done = 0, total_size = 0, fresh = 0, resumed = 0;
  for (const Row& row : rows_) {
    double elapsed = row.state == "downloading" ? seconds_since(row.started) : 0;
    double rate = elapsed > 0.2 ? static_cast<double>(row.done - row.resumed_from) / elapsed : 0;
    lines.push_back(layout_progress_row({terminal_safe(row.component), row.done, row.size, rate, row.state}, name_width, width));
    total_done += row.done;
    total_size += row.size;
    fresh += row.done - row.resumed_from;
    resumed += row.resumed_from;
  }
  double elapsed = seconds_since(begun_);
  double rate = elapsed > 0.2 ? static_cast<double>(fresh) / elapsed : 0;
  // After a resume the total says how much of it this run fetched.
  std::string state = resumed > 0 ? human_bytes(fresh) + " fetched" : "";
  lines.push_back(layout_progress_row({total_name, total_done, total_size, rate, state}, name_width, width));
  for (const std::string& text : lines) {
    std::fprintf(out_, "%s\n", text.c_str());
    drawn_.push_back(text.size());
  }
  std::fflush(out_);
}

}  // namespace cudaenv
