#include "util/nvidia_driver.h"

#include <regex>

#include "util/strings.h"

namespace cudaenv {

namespace {

const std::regex& driver_version_pattern() {
  static const std::regex pattern(R"(\d+\.\d+(\.\d+)?)");
  return pattern;
}

}  // namespace

std::optional<std::string> driver_version_from_proc_text(std::string_view text) {
  // The version is the first dotted number after "Kernel Module" (the open and the
  // proprietary module word the line differently; both put the version there).
  std::string first_line(text.substr(0, text.find('\n')));
  size_t module = first_line.find("Kernel Module");
  if (module == std::string::npos) return std::nullopt;
  for (const std::string& word : split(first_line.substr(module), ' ')) {
    if (std::regex_match(word, driver_version_pattern())) return word;
  }
  return std::nullopt;
}

std::optional<DriverReading> read_driver_version(const FileSystemView& fs) {
  const std::filesystem::path sys_file = "/sys/module/nvidia/version";
  if (auto text = fs.read_file(sys_file)) {
    std::string version(trim(*text));
    if (std::regex_match(version, driver_version_pattern())) return DriverReading{version, sys_file};
  }
  const std::filesystem::path proc_file = "/proc/driver/nvidia/version";
  if (auto text = fs.read_file(proc_file)) {
    if (auto version = driver_version_from_proc_text(*text)) return DriverReading{*version, proc_file};
  }
  return std::nullopt;
}

}  // namespace cudaenv
