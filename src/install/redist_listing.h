#pragma once
// The release labels a redist folder's listing shows: NVIDIA's own index page, nginx autoindex,
// Apache mod_autoindex, or the names of a local folder's files. Parsed without I/O; any bytes
// give a (maybe empty) answer in one pass.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaenv {

// "redistrib_12.1.1.json" -> "12.1.1"; anything else (other names, 4-part or non-canonical
// labels such as "12.01.1") -> nullopt.
std::optional<std::string> label_from_file_name(std::string_view name);

// The labels of every `href` in `html` whose last path segment names a redistrib_<label>.json,
// each once, newest first. Where a link points does not matter: manifests are always fetched
// from the folder itself.
std::vector<std::string> parse_redist_listing(std::string_view html);

}  // namespace cudaenv
