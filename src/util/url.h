#pragma once
// What cudaenv needs of a URL's text; libcurl does the rest.

#include <string_view>

namespace cudaenv {

// A URL without its query and fragment ("https://h/a.whl?x#y" -> "https://h/a.whl"): what names
// the file it serves.
std::string_view strip_url_query(std::string_view url);

}  // namespace cudaenv
