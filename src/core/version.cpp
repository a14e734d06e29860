#include "core/version.h"

#include <charconv>
#include <cstdlib>
#include <tuple>

namespace cudaenv {

std::string Version::str() const {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '.';
    out += std::to_string(parts[i]);
  }
  return out;
}

std::strong_ordering Version::operator<=>(const Version& other) const {
  return parts <=> other.parts;
}

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

}  // namespace cudaenv
