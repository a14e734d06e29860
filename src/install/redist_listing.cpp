#include "install/redist_listing.h"

#include <algorithm>
#include <cctype>

#include "core/version.h"

namespace cudaenv {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

bool iequals_at(std::string_view text, size_t pos, std::string_view word) {
  if (pos + word.size() > text.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[pos + i])) != word[i]) return false;
  }
  return true;
}

// The attribute value that starts at `pos` (quoted or bare); `pos` ends after it.
std::string_view attribute_value(std::string_view html, size_t& pos) {
  if (pos >= html.size()) return {};
  char quote = html[pos];
  if (quote == '"' || quote == '\'') {
    size_t end = html.find(quote, pos + 1);
    if (end == std::string_view::npos) end = html.size();
    std::string_view value = html.substr(pos + 1, end - pos - 1);
    pos = end;
    return value;
  }
  size_t start = pos;
  while (pos < html.size() && !is_space(html[pos]) && html[pos] != '>') ++pos;
  return html.substr(start, pos - start);
}

std::string_view last_segment(std::string_view link) {
  link = link.substr(0, std::min(link.find('?'), link.find('#')));
  size_t slash = link.rfind('/');
  return slash == std::string_view::npos ? link : link.substr(slash + 1);
}

}  // namespace

std::optional<std::string> label_from_file_name(std::string_view name) {
  constexpr std::string_view prefix = "redistrib_", suffix = ".json";
  if (name.size() <= prefix.size() + suffix.size() || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - suffix.size()) != suffix) {
    return std::nullopt;
  }
  std::string_view label = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  auto version = parse_version(label);
  if (!version || version->parts.size() != 3 || version->str() != label) return std::nullopt;
  return std::string(label);
}

std::vector<std::string> parse_redist_listing(std::string_view html) {
  std::vector<std::string> labels;
  for (size_t pos = 0; pos + 4 < html.size(); ++pos) {
    if (!iequals_at(html, pos, "href")) continue;
    size_t at = pos + 4;
    while (at < html.size() && is_space(html[at])) ++at;
    if (at >= html.size() || html[at] != '=') continue;
    ++at;
    while (at < html.size() && is_space(html[at])) ++at;
    std::string_view link = attribute_value(html, at);
    pos = at > pos ? at - 1 : pos;
    if (auto label = label_from_file_name(last_segment(link))) labels.push_back(std::move(*label));
  }
  std::sort(labels.begin(), labels.end(),
            [](const std::string& a, const std::string& b) { return *parse_version(a) > *parse_version(b); });
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  return labels;
}

}  // namespace cudaenv
