#pragma once
// A library of a toolkit as cuda.toml's [cuda] libraries and `install --library` name it:
// "cudnn", or with a version prefix, "cudnn@9.10".

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace cudaenv {

struct LibrarySpec {
  std::string name;     // "cudnn" or "nccl"
  std::string version;  // a version prefix ("9.10"), or "" for the newest
  std::string text() const { return version.empty() ? name : name + "@" + version; }
};

// The libraries cudaenv installs into a toolkit, in the order receipts and locks list them.
const std::vector<std::string>& known_libraries();

// `where` names the setting in errors ("[cuda] libraries" or "--library").
Result<LibrarySpec> parse_library_spec(std::string_view text, const std::string& where);

}  // namespace cudaenv
