#pragma once
// CUDA version numbers ("12", "12.1", "12.1.1") and how requests match them.

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaenv {

struct Version {
  std::vector<int> parts;  // numeric components, 1 to 4 of them

  std::string str() const;
  int major() const { return parts.empty() ? 0 : parts[0]; }
  int minor() const { return parts.size() > 1 ? parts[1] : 0; }
  int patch() const { return parts.size() > 2 ? parts[2] : 0; }
  // Numeric, component by component; a shorter version sorts before a longer
  // one with the same prefix ("12.1" < "12.1.0").
  std::strong_ordering operator<=>(const Version& other) const;
  bool operator==(const Version& other) const = default;
};

// Accepts 1-4 dot-separated decimal numbers, nothing else ("12.1.1", not "v12" or "12.x").
std::optional<Version> parse_version(std::string_view text);

// True when every component of `request` equals the same component of `candidate`:
// "12" matches 12.4.1, "12.1" matches 12.1.1 but not 12.10.0.
bool version_matches(const Version& request, const Version& candidate);

// The candidate closest to `target`: same major first, then the nearest minor, then patch;
// ties go to the newer one. Returns an index into `candidates`, or nullopt if empty.
std::optional<size_t> nearest_version(const Version& target, const std::vector<Version>& candidates);

}  // namespace cudaenv
