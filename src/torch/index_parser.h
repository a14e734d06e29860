#pragma once
// Reading a PyTorch wheel index (download.pytorch.org/whl/torch/ or a proxy of it): PEP 503
// HTML and PEP 691 JSON project pages, wheel file names and PEP 658 core metadata (pure; the
// pages are untrusted: anything unreadable is skipped, nothing throws).

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/version.h"

namespace cudaenv {

// torch-2.1.2+cu121-cp311-cp311-linux_x86_64.whl
struct WheelName {
  std::string package;  // torch
  std::string version;  // 2.1.2 (the public part)
  std::string local;    // cu121, cpu, rocm6.2; empty for none
  std::string python_tag;
  std::string platform;
};
std::optional<WheelName> parse_wheel_name(std::string_view filename);

struct IndexFile {
  std::string filename;
  std::string url;            // as the page wrote it, relative or absolute, fragment dropped
  bool has_metadata = false;  // PEP 658/714: `<url>.metadata` is served
};

// A project page: JSON when it is a JSON object (PEP 691), else HTML anchors (PEP 503).
std::vector<IndexFile> parse_project_page(std::string_view body);

// "Requires-Dist: torch==2.16.0" (or "torch (==2.16.0+cu130)") in core metadata -> "2.16.0".
std::optional<std::string> required_torch(std::string_view metadata);

// cu121 -> 12.1, cu92 -> 9.2; none for cpu, rocm*, xpu.
std::optional<Version> cuda_of_local(std::string_view local);

// One release of a package on the index: which CUDA builds, Python tags and platforms it has.
struct IndexRelease {
  Version version;
  std::vector<Version> cuda;  // ascending
  bool cpu = false;
  std::set<std::string> python_tags;
  std::set<std::string> platforms;
};
// The final releases (x.y.z, no pre- or dev releases) of `package` among `files`, ascending.
std::vector<IndexRelease> releases_on_page(const std::vector<IndexFile>& files, std::string_view package);

// `relative` (an href) resolved against the page it came from.
std::string resolve_url(const std::string& page_url, const std::string& relative);

}  // namespace cudaenv
