// `cudaenv-fetch extension-wheels URL...` (hidden): asks each server whether it has the prebuilt
// extension wheel (a HEAD request, under the text-download deadline) and writes the answers to
// CUDAENV_ROOT/cache/extension-wheels.json. `cudaenv torch --with` and doctor run it for the
// answers their cache lacks, so that `cudaenv` itself never links libcurl.
#include <ctime>
#include <memory>
#include <set>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "core/settings_table.h"
#include "extensions/wheel_cache.h"
#include "install/downloader.h"
#include "mirror/redist_source.h"
#include "util/file_system.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

Status check_wheels(const Session& session, const std::vector<std::string>& urls) {
  fs::path path = session.layout.cache_dir() / kWheelCacheName;
  auto text = session.fs.read_file(path);
  WheelCache cache = text ? parse_wheel_cache(*text) : WheelCache{};
  DownloadOptions options;
  options.tries = 2;
  options.low_speed_seconds = 20;
  CUDAENV_TRY_ASSIGN(options.fetch, fetch_settings(session.env, session.fs, false));
  std::map<std::string, std::string> unreachable;  // host -> why: its other files are not asked again
  for (const std::string& url : urls) {
    CachedWheel wheel;
    wheel.checked_at = static_cast<std::int64_t>(std::time(nullptr));
    auto failed = unreachable.find(url_origin(url));
    if (failed != unreachable.end()) {
      wheel.answer = {WheelPresence::unknown, failed->second};
    } else if (auto exists = url_exists(url, options)) {
      wheel.answer.presence = *exists ? WheelPresence::present : WheelPresence::absent;
    } else {
      wheel.answer = {WheelPresence::unknown, exists.error().message};
      unreachable[url_origin(url)] = exists.error().message;
    }
    cache[url] = wheel;
  }
  std::error_code ignored;
  fs::create_directories(path.parent_path(), ignored);
  return write_file_atomically(path, render_wheel_cache(cache));
}

}  // namespace

CommandHandler configure_extension_wheels(CLI::App& command) {
  command.group("");  // internal: run by `cudaenv torch --with` and `cudaenv doctor`
  auto urls = std::make_shared<std::vector<std::string>>();
  command.add_option("urls", *urls, "Wheel URLs to ask about")->required();
  return [urls](const Setup& setup) -> Result<int> {
    CUDAENV_TRY(check_wheels(setup.session(), *urls));
    return 0;
  };
}

}  // namespace cudaenv
