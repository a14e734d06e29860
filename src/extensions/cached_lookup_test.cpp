#include <catch2/catch.hpp>

#include <ctime>

#include "core/settings_table.h"
#include "extensions/cached_lookup.h"
#include "extensions/wheel_cache.h"
#include "support/memory_file_system.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

TEST_CASE("cached lookup: the wheels' mirror is an http(s) or file:// URL, or none", "[cached_lookup]") {
  CHECK(extension_mirror(env_setting(kExtensionWheelsSetting, {}))->empty());
  EnvMap set{{"CUDAENV_EXTENSION_WHEELS", "file:///srv/wheels"}};
  CHECK(*extension_mirror(env_setting(kExtensionWheelsSetting, set)) == "file:///srv/wheels");
  EnvMap bad{{"CUDAENV_EXTENSION_WHEELS", "/srv/wheels"}};
  auto refused = extension_mirror(env_setting(kExtensionWheelsSetting, bad));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message == "CUDAENV_EXTENSION_WHEELS=/srv/wheels is not an http(s) or file:// URL");
  CHECK(refused.error().kind == ErrorKind::usage);
  EnvMap quoted{{"CUDAENV_EXTENSION_WHEELS", "https://m/x\"y"}};
  CHECK_FALSE(extension_mirror(env_setting(kExtensionWheelsSetting, quoted)).ok());
}

TEST_CASE("cached lookup: fresh answers come from the cache, without asking the servers", "[cached_lookup]") {
  WheelCache cache;
  auto now = static_cast<std::int64_t>(std::time(nullptr));
  cache["https://w/a.whl"] = CachedWheel{{WheelPresence::present, ""}, now};
  cache["https://w/b.whl"] = CachedWheel{{WheelPresence::absent, ""}, now};
  MemoryFileSystem disk;
  disk.file("/root/cache/" + std::string(kWheelCacheName), render_wheel_cache(cache));
  EnvMap env;
  WheelAnswers answers = CachedWheelLookup(disk, "/root/cache", env, false).check({"https://w/a.whl", "https://w/b.whl"});
  CHECK(answers["https://w/a.whl"].presence == WheelPresence::present);
  CHECK(answers["https://w/b.whl"].presence == WheelPresence::absent);
}

TEST_CASE("cached lookup: a toolkit of the major.minor is installed or registered", "[cached_lookup]") {
  Toolkit old;
  old.name = "12.1.1";
  old.version = parse_version("12.1.1");
  Toolkit gone;
  gone.name = "12.4.1";
  gone.version = parse_version("12.4.1");
  gone.present = false;
  CHECK(toolkit_installed({old, gone}, *parse_version("12.1")));
  CHECK(toolkit_installed({old, gone}, *parse_version("12.1.0")));
  CHECK_FALSE(toolkit_installed({old, gone}, *parse_version("12.4")));
  CHECK_FALSE(toolkit_installed({}, *parse_version("12.1")));
}
