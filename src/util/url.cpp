#include "util/url.h"

namespace cudaenv {

std::string_view strip_url_query(std::string_view url) { return url.substr(0, url.find_first_of("?#")); }

}  // namespace cudaenv
