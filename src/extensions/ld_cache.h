#pragma once
// /etc/ld.so.cache, the loader's map from a soname to the files ldconfig found for it, read the
// way glibc's loader reads it (the "glibc-ld.so.cache1.1" format, behind the old libc5 table where
// an old ldconfig wrote both). The file is untrusted: every offset is checked.

#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "util/result.h"

namespace cudaenv {

// (soname, path) in the cache's order, the loader's preference among several.
using LdCache = std::vector<std::pair<std::string, std::filesystem::path>>;

Result<LdCache> parse_ld_cache(std::span<const unsigned char> bytes, const std::string& label);

}  // namespace cudaenv
