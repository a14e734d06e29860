#pragma once
// Reading a Python package index (PyPI, download.pytorch.org/whl or a proxy of either): PEP 503
// HTML and PEP 691 JSON project pages, wheel file names and PEP 658 core metadata (pure; the
// pages are untrusted: anything unreadable is skipped, nothing throws). `cudaenv torch` reads
// torch's pages with it, `install --source pypi` NVIDIA's CUDA wheels.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/version.h"

namespace cudaenv {

// The Accept header of a project page request (PEP 691): JSON where the index serves it, else
// the PEP 503 HTML page.
inline constexpr const char* kSimpleIndexAccept =
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1";

// torch-2.1.2+cu121-cp311-cp311-linux_x86_64.whl
struct WheelName {
  std::string package;  // torch
  std::string version;  // 2.1.2 (the public part)
  std::string local;    // cu121, cpu, rocm6.2; empty for none
  std::string python_tag;
  std::string platform;  // compressed tag sets stay whole: "manylinux2014_x86_64.manylinux_2_17_x86_64"
};
std::optional<WheelName> parse_wheel_name(std::string_view filename);

struct IndexFile {
  std::string filename;
  std::string url;            // as the page wrote it, relative or absolute, fragment dropped
  bool has_metadata = false;  // PEP 658/714: `<url>.metadata` is served
  std::string sha256;         // lowercase hex from `#sha256=` (PEP 503) or `hashes` (PEP 691); empty for none
  std::uint64_t size = 0;     // PEP 700's `size` (JSON pages only); 0 when the page does not say
  bool yanked = false;        // PEP 592: `data-yanked` or JSON `yanked` other than false
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

// Whether a page may send a client to `url` (resolved): an http(s) page only to http(s) URLs,
// as pip, so a remote page never leads to a file on this machine (file://) or another scheme.
bool may_follow(std::string_view page_url, std::string_view url);

}  // namespace cudaenv
