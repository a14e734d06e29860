#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaenv {

std::vector<std::string> split(std::string_view text, char separator);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::string_view trim(std::string_view text);
bool starts_with(std::string_view text, std::string_view prefix);
// The value of a hexadecimal digit, either case; -1 for any other byte.
int hex_digit(char c);
// ASCII letters lowercased, other bytes kept (names and hex digits from indexes and manifests).
std::string ascii_lower(std::string_view text);
// "http://127.0.0.1:8080" of "http://127.0.0.1:8080/a/b" (scheme and host, lowercased); "file://"
// for a local URL: the server a message names.
std::string url_origin(std::string_view url);
// PEP 503's normalised project name: lowercase, each run of '-', '_', '.' one '-'.
std::string normalize_project_name(std::string_view name);
// Single-quoted for POSIX shells: safe for any byte string.
std::string posix_quote(std::string_view text);
// As it can stand in a POSIX shell command: as is where it needs no quotes (a path, a URL, name==1.2),
// else posix_quote'd.
std::string shell_word(std::string_view text);
// Single-quoted for fish, which also treats backslash specially inside quotes.
std::string fish_quote(std::string_view text);
// A JSON string literal.
std::string json_quote(std::string_view text);
// `text` as a terminal shows it safely: control characters (C0, DEL, C1) and bytes that are not
// UTF-8 become visible escapes (\x1b, \n, \u009b), so a name or path read from a file, a server
// or the file system cannot move the cursor, recolour or retitle the terminal.
std::string terminal_safe(std::string_view text);
// A whole decimal number no larger than `max`: digits only, no sign, spaces or overflow.
std::optional<std::uint64_t> parse_decimal(std::string_view text, std::uint64_t max = std::numeric_limits<std::uint64_t>::max());
// A duration as people read it: "4.2 s".
std::string seconds_text(double seconds);
// argv/envp for exec: pointers into `strings`, ending with nullptr; `strings` must outlive it.
std::vector<char*> c_string_array(std::vector<std::string>& strings);

// Levenshtein distance: the fewest one-character insertions, deletions and substitutions.
size_t edit_distance(std::string_view a, std::string_view b);
// The closest of `choices` to `word`, if it is close enough to be a likely typo.
std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string>& choices);

}  // namespace cudaenv
