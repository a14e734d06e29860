#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cudaenv {

std::vector<std::string> split(std::string_view text, char separator);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::string_view trim(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);
// Single-quoted for POSIX shells: safe for any byte string.
std::string posix_quote(std::string_view text);
// Single-quoted for fish, which also treats backslash specially inside quotes.
std::string fish_quote(std::string_view text);
// A JSON string literal.
std::string json_quote(std::string_view text);
// argv/envp for exec: pointers into `strings`, ending with nullptr; `strings` must outlive it.
std::vector<char*> c_string_array(std::vector<std::string>& strings);

}  // namespace cudaenv
