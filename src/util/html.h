#pragma once
// The links of an HTML page from an untrusted server (a package index, a folder listing): the
// one scanner of tags and attributes that every such page is read with. Pure; never throws on
// any input.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cudaenv {

// One tag's attributes: names lowercased, values with the entities an index writes decoded
// (&amp; &lt; &gt; &quot; &apos; &#NN; &#xNN;).
using HtmlAttributes = std::map<std::string, std::string>;

// The attributes of every <a> tag, in page order; a tag cut off before its '>' (a truncated
// page) counts for nothing.
std::vector<HtmlAttributes> html_anchors(std::string_view page);

}  // namespace cudaenv
