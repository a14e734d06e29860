#include "extensions/wheel_cache.h"

#include <nlohmann/json.hpp>

#include "util/json_reader.h"

namespace cudaenv {

namespace {

constexpr int kFormat = 1;

const char* presence_name(WheelPresence presence) {
  switch (presence) {
    case WheelPresence::present: return "present";
    case WheelPresence::absent: return "absent";
    case WheelPresence::unknown: break;
  }
  return "unreachable";
}

Result<WheelCache> read_cache(std::string_view text) {
  CUDAENV_TRY_ASSIGN(auto document, JsonValue::parse(text, kWheelCacheName));
  CUDAENV_TRY_ASSIGN(auto format, document.at("format"));
  CUDAENV_TRY_ASSIGN(auto number, format.integer());
  if (number != kFormat) return document.error("unknown format");
  CUDAENV_TRY_ASSIGN(auto wheels, document.at("wheels"));
  CUDAENV_TRY_ASSIGN(auto members, wheels.members());
  WheelCache cache;
  for (const auto& [url, entry] : members) {
    CachedWheel wheel;
    CUDAENV_TRY_ASSIGN(auto state, entry.string_at("state"));
    if (state == "present") wheel.answer.presence = WheelPresence::present;
    else if (state == "absent") wheel.answer.presence = WheelPresence::absent;
    else if (state != "unreachable") return entry.error("unknown state");
    CUDAENV_TRY_ASSIGN(auto why, entry.optional_string("why"));
    wheel.answer.why = why.value_or("");
    CUDAENV_TRY_ASSIGN(auto at, entry.at("checked_at"));
    CUDAENV_TRY_ASSIGN(auto seconds, at.integer());
    wheel.checked_at = seconds;
    cache[url] = wheel;
  }
  return cache;
}

}  // namespace

std::string render_wheel_cache(const WheelCache& cache) {
  nlohmann::json wheels = nlohmann::json::object();
  for (const auto& [url, wheel] : cache) {
    wheels[url] = {{"state", presence_name(wheel.answer.presence)}, {"why", wheel.answer.why}, {"checked_at", wheel.checked_at}};
  }
  return nlohmann::json{{"format", kFormat}, {"wheels", wheels}}.dump(1) + "\n";
}

WheelCache parse_wheel_cache(std::string_view text) {
  auto cache = read_cache(text);
  return cache ? std::move(*cache) : WheelCache{};
}

WheelAnswers fresh_answers(const WheelCache& cache, const std::vector<std::string>& urls, std::int64_t now) {
  WheelAnswers answers;
  for (const std::string& url : urls) {
    auto found = cache.find(url);
    if (found == cache.end()) continue;
    const CachedWheel& wheel = found->second;
    std::int64_t ttl = wheel.answer.presence == WheelPresence::unknown ? kWheelRetrySeconds : kWheelAnswerTtlSeconds;
    if (wheel.checked_at <= now && now - wheel.checked_at < ttl) answers[url] = wheel.answer;
  }
  return answers;
}

}  // namespace cudaenv
