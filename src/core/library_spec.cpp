#include "core/library_spec.h"

#include <algorithm>

#include "core/version.h"
#include "util/strings.h"

namespace cudaenv {

const std::vector<std::string>& known_libraries() {
  static const std::vector<std::string> names = {"cudnn", "nccl"};
  return names;
}

Result<LibrarySpec> parse_library_spec(std::string_view text, const std::string& where) {
  size_t at = text.find('@');
  LibrarySpec spec{std::string(text.substr(0, at)), at == std::string_view::npos ? "" : std::string(text.substr(at + 1))};
  const auto& known = known_libraries();
  if (std::find(known.begin(), known.end(), spec.name) == known.end()) {
    std::string hint = "cudaenv installs these libraries: " + join(known, ", ");
    if (auto guess = closest_word(spec.name, known)) hint = "did you mean " + *guess + "? " + hint;
    return make_error(where + " names '" + terminal_safe(text) + "', which is not a library cudaenv installs", hint, 2);
  }
  if (at != std::string_view::npos && !parse_version(spec.version)) {
    return make_error(where + " entry '" + terminal_safe(text) + "' has no version after '@'",
                      "write a version prefix, e.g. " + spec.name + "@9.10, or just " + spec.name + " for the newest", 2);
  }
  return spec;
}

}  // namespace cudaenv
