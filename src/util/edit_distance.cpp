#include "util/edit_distance.h"

#include <algorithm>
#include <numeric>

namespace cudaenv {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string>& choices) {
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& choice : choices) {
    size_t distance = edit_distance(word, choice);
    if (distance < best_distance) {
      best_distance = distance;
      best = choice;
    }
  }
  return best;
}

}  // namespace cudaenv
