#pragma once
// What servers said of prebuilt extension wheels, kept in CUDAENV_ROOT/cache so that `cudaenv
// torch --with` and doctor ask once a day (pure: cudaenv-fetch asks and writes, cudaenv reads).
// An unreachable server is kept too, for an hour, so that offline a second run does not wait
// for the deadline again, and still says what it could not reach.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "extensions/advice.h"

namespace cudaenv {

inline constexpr const char* kWheelCacheName = "extension-wheels.json";
inline constexpr std::int64_t kWheelAnswerTtlSeconds = 24 * 60 * 60;
inline constexpr std::int64_t kWheelRetrySeconds = 60 * 60;

struct CachedWheel {
  WheelAnswer answer;
  std::int64_t checked_at = 0;  // unix seconds
};
using WheelCache = std::map<std::string, CachedWheel>;  // by URL

std::string render_wheel_cache(const WheelCache& cache);
// Empty for anything this version did not write (the cache is then asked again).
WheelCache parse_wheel_cache(std::string_view text);

// The cached answers for `urls` that are still fresh at `now`.
WheelAnswers fresh_answers(const WheelCache& cache, const std::vector<std::string>& urls, std::int64_t now);

}  // namespace cudaenv
