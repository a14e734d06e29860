#pragma once
// The one way cudaenv hands a TOML file to toml++ (cuda.toml, cuda.lock): safe against its
// non-ASCII crashes, with syntax errors explained as "file:line:col: what" plus a fix.

#include <toml++/toml.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "util/result.h"

namespace cudaenv {

// `also` is appended to every hint. With `ascii`, the table is parsed from a copy whose bytes
// past ASCII are 'x' (same offsets), for callers that edit the text by position.
Result<toml::table> parse_toml(const std::filesystem::path& path, std::string_view text, const std::string& also, bool ascii);

}  // namespace cudaenv
