#pragma once
// What an install downloads and unpacks, whichever source planned it: a plain value that the
// receipt records and a lock file can write and read back.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.h"

namespace cudaenv {

struct PlannedFile {
  std::string component;  // "cuda_nvcc"
  std::string version;    // the component's own version ("13.2.86"), not the release label
  std::string url;        // absolute
  std::string sha256;     // lowercase hex, checked before the file is unpacked
  std::uint64_t size = 0;
  std::string distribution;  // the wheel's project ("nvidia-cuda-nvcc"); empty for a redist archive
  bool operator==(const PlannedFile&) const = default;
};

struct InstallPlan {
  std::string label;   // "13.2.2"
  std::string source;  // "redist" | "pypi"
  std::string origin;  // the redist folder (ending in '/') or the package index root
  // What fixed the component versions: redistrib_<label>.json, or the cuda-toolkit metapackage wheel.
  std::string pinned_by_url;
  std::string pinned_by_sha256;
  std::vector<PlannedFile> files;
  bool operator==(const InstallPlan&) const = default;
};

nlohmann::ordered_json plan_json(const InstallPlan& plan);
// `source` names the text in errors.
Result<InstallPlan> parse_plan(std::string_view text, const std::string& source);

}  // namespace cudaenv
