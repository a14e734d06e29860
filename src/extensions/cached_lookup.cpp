#include "extensions/cached_lookup.h"

#include <ctime>

#include "core/data_dir.h"
#include "extensions/wheel_cache.h"
#include "util/process.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// cudaenv-fetch ends each question within the text-download deadline; this bounds the whole run.
constexpr std::chrono::minutes kHelperLimit{5};

WheelCache read_cache(const FileSystemView& fs, const std::filesystem::path& cache_dir) {
  auto text = fs.read_file(cache_dir / kWheelCacheName);
  return text ? parse_wheel_cache(*text) : WheelCache{};
}

}  // namespace

Result<std::string> extension_mirror(const Setting& extension_wheels) {
  const Setting& setting = extension_wheels;
  const std::string& url = setting.value;
  if (url.empty()) return url;
  bool web = starts_with(url, "http://") || starts_with(url, "https://") || starts_with(url, "file://");
  if (!web || url.find_first_of(" \t\n\"'") != std::string::npos) {
    return make_error(setting.as_written() + " is not an http(s) or file:// URL",
                      "set it to the folder that holds the prebuilt wheels side by side, e.g. "
                      "https://mirror.example/extension-wheels, or unset it",
                      ErrorKind::usage);
  }
  return url;
}

WheelAnswers CachedWheelLookup::check(const std::vector<std::string>& urls) const {
  auto now = static_cast<std::int64_t>(std::time(nullptr));
  WheelAnswers answers = refresh_ ? WheelAnswers{} : fresh_answers(read_cache(fs_, cache_dir_), urls, now);
  std::vector<std::string> missing;
  for (const std::string& url : urls) {
    if (!answers.count(url)) missing.push_back(url);
  }
  if (missing.empty()) return answers;
  std::string failure = "cudaenv-fetch could not run";
  if (auto helper = locate_program("cudaenv-fetch")) {
    std::vector<std::string> argv{helper->string(), "extension-wheels", "--"};
    argv.insert(argv.end(), missing.begin(), missing.end());
    auto ran = run_capture(argv, kHelperLimit, &env_);
    if (!ran) failure = ran.error().message;
    else if (ran->exit_code != 0) failure = "cudaenv-fetch: " + std::string(trim(ran->err));
  } else {
    failure = helper.error().message;
  }
  // The helper dates its answers when it asks, which may be seconds after `now` on a busy machine.
  auto asked_by = static_cast<std::int64_t>(std::time(nullptr));
  WheelAnswers asked = fresh_answers(read_cache(fs_, cache_dir_), missing, asked_by);
  for (const std::string& url : missing) {
    auto found = asked.find(url);
    answers[url] = found != asked.end() ? found->second : WheelAnswer{WheelPresence::unknown, failure};
  }
  return answers;
}

bool toolkit_installed(const std::vector<Toolkit>& toolkits, const Version& cuda) {
  for (const Toolkit& toolkit : toolkits) {
    if (toolkit.present && toolkit.version && version_matches(major_minor(cuda), *toolkit.version)) return true;
  }
  return false;
}

}  // namespace cudaenv
