#pragma once
// "file:line:column", the way every TOML error in cudaenv names its place.

#include <toml++/toml.h>

#include <filesystem>
#include <string>

namespace cudaenv {

inline std::string toml_position(const std::filesystem::path& path, const toml::source_position& pos) {
  return path.string() + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

}  // namespace cudaenv
