#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaenv {

size_t edit_distance(std::string_view a, std::string_view b);
// The closest of `choices` to `word`, if it is close enough to be a likely typo.
std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string>& choices);

}  // namespace cudaenv
