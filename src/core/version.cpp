#include "core/version.h"

#include <charconv>
#include <cstdlib>
#include <tuple>

#include "util/strings.h"

namespace cudaenv {

std::string Version::str() const {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '.';
    out += std::to_string(parts[i]);
  }
  return out;
}

std::strong_ordering Version::operator<=>(const Version& other) const { return parts <=> other.parts; }

std::optional<Version> parse_version(std::string_view text) {
  Version version;
  size_t pos = 0;
  while (true) {
    size_t end = text.find('.', pos);
    std::string_view part = text.substr(pos, end == std::string_view::npos ? end : end - pos);
    if (part.empty() || part.size() > 9 || part[0] < '0' || part[0] > '9') return std::nullopt;
    int number = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), number);
    if (ec != std::errc{} || ptr != part.data() + part.size()) return std::nullopt;
    version.parts.push_back(number);
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  if (version.parts.size() > 4) return std::nullopt;
  return version;
}

Version major_minor(const Version& version) { return Version{{version.major(), version.minor()}}; }

bool version_matches(const Version& request, const Version& candidate) {
  if (request.parts.size() > candidate.parts.size()) return false;
  for (size_t i = 0; i < request.parts.size(); ++i) {
    if (request.parts[i] != candidate.parts[i]) return false;
  }
  return true;
}

std::optional<size_t> nearest_version(const Version& target, const std::vector<Version>& candidates) {
  std::optional<size_t> best;
  auto distance = [&](const Version& v) {
    return std::make_tuple(std::abs(v.major() - target.major()), std::abs(v.minor() - target.minor()),
                           std::abs(v.patch() - target.patch()));
  };
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!best) {
      best = i;
      continue;
    }
    auto d = distance(candidates[i]);
    auto best_d = distance(candidates[*best]);
    if (d < best_d || (d == best_d && candidates[i] > candidates[*best])) best = i;
  }
  return best;
}

std::optional<Version> version_from_cuda_number(long long number) {
  if (number < 1000 || number > 999999) return std::nullopt;
  int value = static_cast<int>(number);
  return Version{{value / 1000, (value % 1000) / 10}};
}

std::optional<DriverVersion> parse_driver_version(std::string_view text) {
  auto number = parse_version(text);
  if (!number) return std::nullopt;
  return DriverVersion{*number, std::string(text)};
}

namespace {

bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string ComputeCapability::str() const { return std::to_string(major_) + "." + std::to_string(minor_); }

std::optional<ComputeCapability> parse_compute_capability(std::string_view text) {
  auto version = parse_version(text);
  if (!version || version->parts.size() != 2) return std::nullopt;
  return ComputeCapability(version->major(), version->minor());
}

std::optional<ArchEntry> parse_arch_entry(std::string_view text) {
  ArchEntry entry;
  if (text.size() > 4 && text.substr(text.size() - 4) == "+PTX") {
    entry.ptx = true;
    text.remove_suffix(4);
  }
  if (!text.empty() && is_lower(text.back())) {
    entry.suffix = text.back();
    text.remove_suffix(1);
  }
  auto capability = parse_compute_capability(text);
  if (!capability) return std::nullopt;
  entry.capability = *capability;
  return entry;
}

std::optional<ArchEntry> parse_nvcc_arch(std::string_view text) {
  ArchEntry entry;
  entry.ptx = starts_with(text, "compute_");
  if (!entry.ptx && !starts_with(text, "sm_")) return std::nullopt;
  text.remove_prefix(entry.ptx ? 8 : 3);
  while (!text.empty() && (is_lower(text.back()) || (text.back() >= 'A' && text.back() <= 'Z'))) {
    entry.suffix = text.back();
    text.remove_suffix(1);
  }
  // A major past 999 is no GPU (and no int).
  auto major = text.size() < 2 ? std::nullopt : parse_decimal(text.substr(0, text.size() - 1), 999);
  if (!major || !is_digit(text.back())) return std::nullopt;
  entry.capability = ComputeCapability(static_cast<int>(*major), text.back() - '0');
  return entry;
}

std::string sm_name(const ComputeCapability& capability) {
  return "sm_" + std::to_string(capability.major()) + std::to_string(capability.minor());
}

}  // namespace cudaenv
