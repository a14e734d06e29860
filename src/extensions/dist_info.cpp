#include "extensions/dist_info.h"

#include <cctype>

#include "util/strings.h"

namespace cudaenv {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kRecordLimit = std::size_t{64} << 20;  // torch's RECORD is about 2 MB

// The digits at the start of `text`.
std::string_view leading_digits(std::string_view text) {
  std::size_t end = 0;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  return text.substr(0, end);
}

std::string_view local_part(std::string_view version) {
  std::size_t plus = version.find('+');
  return plus == std::string_view::npos ? std::string_view() : version.substr(plus + 1);
}

// "torch==2.4.1", "torch (==2.4.1)", "torch==2.4.1; python_version >= '3.9'" -> 2.4.1
std::optional<std::string> torch_pin(std::string_view requirement) {
  std::string spec(trim(requirement.substr(0, requirement.find(';'))));
  std::erase_if(spec, [](char c) { return c == '(' || c == ')' || c == ' '; });
  if (!starts_with(ascii_lower(spec), "torch==")) return std::nullopt;
  std::string pin = spec.substr(7);
  if (pin.empty() || pin.find_first_of(",<>!~*=") != std::string::npos) return std::nullopt;
  return pin;
}

}  // namespace

InstalledFiles read_installed_files(const FileSystemView& fs, const fs::path& dir) {
  InstalledFiles files;
  for (const std::string& name : fs.list_dir(dir)) {
    if (name.size() <= 10 || name.compare(name.size() - 10, 10, ".dist-info") != 0) continue;
    auto record = fs.read_file(dir / name / "RECORD", kRecordLimit);
    if (!record) continue;
    std::size_t index = files.dist_infos.size();
    files.dist_infos.push_back(dir / name);
    for (const std::string& line : split(*record, '\n')) {
      // CSV: path,hash,size; a path with a comma or quote is quoted.
      std::string path;
      if (!line.empty() && line.front() == '"') {
        std::size_t close = line.find('"', 1);
        path = line.substr(1, close == std::string::npos ? std::string::npos : close - 1);
      } else {
        path = line.substr(0, line.find(','));
      }
      // Strings, not paths: torch's RECORD alone has 15,000 lines.
      if (!path.empty() && !starts_with(path, "../") && path.front() != '/') files.owner.emplace(std::move(path), index);
    }
  }
  return files;
}

std::optional<Distribution> read_distribution(const FileSystemView& fs, const fs::path& dist_info) {
  auto text = fs.read_file(dist_info / "METADATA");
  if (!text) return std::nullopt;
  Distribution distribution;
  for (const std::string& raw : split(*text, '\n')) {
    std::string_view line = raw;
    if (line.empty() || line == "\r") break;  // the headers end at the first empty line
    if (starts_with(line, "Name:")) distribution.name = trim(line.substr(5));
    if (starts_with(line, "Version:")) distribution.version = trim(line.substr(8));
    if (starts_with(line, "Requires-Dist:") && !distribution.requires_torch) {
      distribution.requires_torch = torch_pin(trim(line.substr(14)));
    }
  }
  if (distribution.name.empty()) return std::nullopt;
  return distribution;
}

std::optional<std::string> torch_in_version(std::string_view version) {
  std::string_view local = local_part(version);
  std::size_t at = local.find("torch");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = local.substr(at + 5);
  std::string_view major = leading_digits(rest);
  if (major.empty() || rest.size() <= major.size() || rest[major.size()] != '.') return std::nullopt;
  std::string_view minor = leading_digits(rest.substr(major.size() + 1));
  if (minor.empty()) return std::nullopt;
  return std::string(major) + "." + std::string(minor);
}

std::optional<std::string> cuda_in_version(std::string_view version) {
  std::string_view local = local_part(version);
  std::size_t at = local.find("cu");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view digits = leading_digits(local.substr(at + 2));
  if (digits.size() < 2 || digits.size() > 4) return std::nullopt;
  if (digits.size() == 2) return std::string(digits);  // "+cu12": the major alone
  return std::string(digits.substr(0, 2)) + "." + std::string(digits.substr(2));
}

}  // namespace cudaenv
