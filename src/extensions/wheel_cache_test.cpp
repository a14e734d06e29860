// The cache of what servers said of prebuilt wheels: answers kept a day, an unreachable server an
// hour, and anything this version did not write read as empty.
#include <catch2/catch.hpp>

#include "extensions/wheel_cache.h"

using namespace cudaenv;

TEST_CASE("the wheel cache keeps answers a day and failures an hour") {
  WheelCache cache;
  cache["https://h/a.whl"] = {{WheelPresence::present, ""}, 1000};
  cache["https://h/b.whl"] = {{WheelPresence::absent, ""}, 1000};
  cache["https://x/c.whl"] = {{WheelPresence::unknown, "Could not resolve host: x"}, 1000};
  WheelCache read = parse_wheel_cache(render_wheel_cache(cache));
  REQUIRE(read.size() == 3);
  CHECK(read["https://x/c.whl"].answer.why == "Could not resolve host: x");
  std::vector<std::string> urls{"https://h/a.whl", "https://h/b.whl", "https://x/c.whl", "https://h/new.whl"};
  WheelAnswers soon = fresh_answers(read, urls, 1000 + 60);
  CHECK(soon.size() == 3);
  CHECK(soon["https://h/a.whl"].presence == WheelPresence::present);
  CHECK(soon["https://h/b.whl"].presence == WheelPresence::absent);
  CHECK(soon["https://x/c.whl"].presence == WheelPresence::unknown);
  WheelAnswers later = fresh_answers(read, urls, 1000 + kWheelRetrySeconds);
  CHECK(later.size() == 2);
  CHECK_FALSE(later.count("https://x/c.whl"));
  CHECK(fresh_answers(read, urls, 1000 + kWheelAnswerTtlSeconds).empty());
  CHECK(fresh_answers(read, urls, 999).empty());  // a clock set back does not make an answer fresh
}

TEST_CASE("a cache this version did not write is empty") {
  CHECK(parse_wheel_cache("").empty());
  CHECK(parse_wheel_cache("{\"format\":2,\"wheels\":{}}").empty());
  CHECK(parse_wheel_cache("{\"format\":1,\"wheels\":{\"u\":{\"state\":\"maybe\",\"checked_at\":1}}}").empty());
  CHECK(parse_wheel_cache("[1,2").empty());
}
