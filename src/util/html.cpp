#include "util/html.h"

#include <algorithm>
#include <cctype>

#include "util/strings.h"

namespace cudaenv {

namespace {

// The few entities an index writes in attributes: &amp; &lt; &gt; &quot; &#39; &#NN; &#xNN;
std::string html_unescape(std::string_view text) {
  static const std::pair<std::string_view, char> named[] = {
      {"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''}};
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out += text[i];
      continue;
    }
    std::string_view rest = text.substr(i + 1);
    bool done = false;
    for (const auto& [name, c] : named) {
      if (starts_with(rest, name)) {
        out += c;
        i += name.size();
        done = true;
        break;
      }
    }
    size_t semicolon = rest.find(';');
    if (!done && starts_with(rest, "#") && semicolon != std::string_view::npos && semicolon <= 8) {
      std::string_view digits = rest.substr(1, semicolon - 1);
      bool hex = !digits.empty() && (digits[0] == 'x' || digits[0] == 'X');
      if (hex) digits.remove_prefix(1);
      unsigned value = 0;
      bool valid = !digits.empty();
      for (char d : digits) {
        int v = hex ? hex_digit(d) : (d >= '0' && d <= '9' ? d - '0' : -1);
        if (v < 0) valid = false;
        value = value * (hex ? 16 : 10) + static_cast<unsigned>(std::max(v, 0));
      }
      if (valid && value > 0 && value < 128) {
        out += static_cast<char>(value);
        i += semicolon + 1;
        done = true;
      }
    }
    if (!done) out += '&';
  }
  return out;
}

// The attributes of one tag's text ("a href=... data-x=..."), names lowercased.
HtmlAttributes tag_attributes(std::string_view tag) {
  HtmlAttributes attributes;
  size_t i = 0;
  auto skip_space = [&] {
    while (i < tag.size() && std::isspace(static_cast<unsigned char>(tag[i]))) ++i;
  };
  while (i < tag.size() && !std::isspace(static_cast<unsigned char>(tag[i]))) ++i;  // the tag name
  while (i < tag.size()) {
    skip_space();
    size_t name_start = i;
    while (i < tag.size() && tag[i] != '=' && tag[i] != '/' && !std::isspace(static_cast<unsigned char>(tag[i]))) ++i;
    std::string name = ascii_lower(tag.substr(name_start, i - name_start));
    skip_space();
    std::string value;
    if (i < tag.size() && tag[i] == '=') {
      ++i;
      skip_space();
      if (i < tag.size() && (tag[i] == '"' || tag[i] == '\'')) {
        char quote = tag[i++];
        size_t end = tag.find(quote, i);
        if (end == std::string_view::npos) end = tag.size();
        value = html_unescape(tag.substr(i, end - i));
        i = end + 1;
      } else {
        size_t start = i;
        while (i < tag.size() && !std::isspace(static_cast<unsigned char>(tag[i]))) ++i;
        value = html_unescape(tag.substr(start, i - start));
      }
    } else if (i < tag.size()) {
      ++i;  // a stray '/'
    }
    if (!name.empty()) attributes.emplace(name, value);
  }
  return attributes;
}

}  // namespace

std::vector<HtmlAttributes> html_anchors(std::string_view page) {
  std::vector<HtmlAttributes> anchors;
  for (size_t at = 0; (at = page.find('<', at)) != std::string_view::npos;) {
    size_t end = page.find('>', at);
    if (end == std::string_view::npos) break;
    std::string_view tag = page.substr(at + 1, end - at - 1);
    at = end + 1;
    if (tag.size() < 2 || (tag[0] != 'a' && tag[0] != 'A') || !std::isspace(static_cast<unsigned char>(tag[1]))) continue;
    anchors.push_back(tag_attributes(tag));
  }
  return anchors;
}

}  // namespace cudaenv
