#include "core/version_detect.h"

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "util/strings.h"

namespace cudaenv {

std::optional<Version> version_from_version_json(std::string_view text) {
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::nullopt;
  auto cuda = json.find("cuda");
  if (cuda == json.end() || !cuda->is_object()) return std::nullopt;
  auto version = cuda->find("version");
  if (version == cuda->end() || !version->is_string()) return std::nullopt;
  return parse_version(version->get<std::string>());
}

std::optional<Version> version_from_cuda_h(std::string_view text) {
  static const std::regex pattern(R"(#define\s+CUDA_VERSION\s+(\d+))");
  std::match_results<std::string_view::const_iterator> match;
  if (!std::regex_search(text.begin(), text.end(), match, pattern)) return std::nullopt;
  // CUDA_VERSION is major * 1000 + minor * 10 (12040 for 12.4); anything past major 999 is no CUDA.
  auto number = parse_decimal(match[1].str(), 999999);
  if (!number || *number < 1000) return std::nullopt;
  int value = static_cast<int>(*number);
  return Version{{value / 1000, (value % 1000) / 10}};
}

std::optional<Version> version_from_nvcc_banner(std::string_view text) {
  static const std::regex pattern(R"(release (\d+\.\d+))");
  std::match_results<std::string_view::const_iterator> match;
  if (!std::regex_search(text.begin(), text.end(), match, pattern)) return std::nullopt;
  return parse_version(match[1].str());
}

}  // namespace cudaenv
