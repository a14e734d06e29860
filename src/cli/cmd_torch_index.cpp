// `cudaenv-fetch torch-index-refresh` (hidden): reads CUDAENV_TORCH_INDEX's torch, torchvision
// and torchaudio pages, and the core metadata of the torchvision/torchaudio releases the shipped
// table does not pair, and writes the snapshot to CUDAENV_ROOT/cache/torch-index.json. `cudaenv
// torch` runs it when the cache is stale, so that `cudaenv` itself never links libcurl.
#include <ctime>

#include <CLI/CLI.hpp>

#include "cli/torch_index_refresh.h"

#include "cli/commands.h"
#include "core/settings_table.h"
#include "install/downloader.h"
#include "mirror/redist_source.h"
#include "torch/discovery.h"
#include "util/file_system.h"

namespace cudaenv {

namespace {

constexpr size_t kMetadataReadsPerPackage = 16;  // the newest unpaired releases; a cold refresh stays small

DownloadOptions index_options(const FetchSettings& fetch) {
  DownloadOptions options;
  options.tries = 2;
  options.low_speed_seconds = 20;
  options.fetch = fetch;
  return options;
}

// For each release in `versions` the table does not pair, newest first, the torch its metadata requires.
std::map<std::string, std::string> read_pairings(const TorchMatrix& shipped, const std::string& page_url,
                                                 const std::vector<IndexFile>& files, const std::set<std::string>& versions,
                                                 bool torchaudio, const DownloadOptions& options) {
  std::map<std::string, std::string> pairs;  // torch -> the package's release
  std::vector<std::string> wanted = unpaired(shipped, versions, torchaudio);
  std::sort(wanted.begin(), wanted.end(),
            [](const std::string& a, const std::string& b) { return *parse_version(b) < *parse_version(a); });
  if (wanted.size() > kMetadataReadsPerPackage) wanted.resize(kMetadataReadsPerPackage);
  for (const std::string& version : wanted) {
    for (const IndexFile& file : files) {
      auto wheel = parse_wheel_name(file.filename);
      if (!file.has_metadata || !wheel || wheel->version != version) continue;
      std::string url = resolve_url(page_url, file.url);
      if (!may_follow(page_url, url)) continue;
      auto metadata = fetch_text(url + ".metadata", options);
      auto torch = metadata ? required_torch(*metadata) : std::nullopt;
      if (torch && !pairs.count(*torch)) pairs[*torch] = version;
      break;  // one wheel's metadata speaks for the release
    }
  }
  return pairs;
}

Status read_index(const TorchMatrix& shipped, TorchIndexSnapshot& snapshot, const DownloadOptions& options) {
  for (const char* package : {"torch", "torchvision", "torchaudio"}) {
    std::string url = snapshot.base + "/" + package + "/";
    auto page = fetch_text(url, options, kSimpleIndexAccept);  // at most kMaxTextBytes, within a deadline
    if (!page && std::string(package) == "torch") return page.take_error();
    if (!page) continue;  // a proxy without torchaudio still serves torch
    std::vector<IndexFile> files = parse_project_page(*page);
    std::vector<IndexRelease> releases = releases_on_page(files, package);
    if (std::string(package) == "torch") {
      if (releases.empty()) return make_error(url + " lists no torch wheels");
      snapshot.torch = std::move(releases);
      continue;
    }
    bool audio = std::string(package) == "torchaudio";
    std::set<std::string>& versions = audio ? snapshot.torchaudio : snapshot.torchvision;
    for (const IndexRelease& release : releases) versions.insert(release.version.str());
    (audio ? snapshot.torchaudio_for : snapshot.torchvision_for) = read_pairings(shipped, url, files, versions, audio, options);
  }
  return ok_status();
}

}  // namespace

Result<TorchIndexSnapshot> refresh_torch_index(const Session& session) {
  CUDAENV_TRY_ASSIGN(auto shipped, load_torch_matrix(session.data));
  CUDAENV_TRY(use_index_base(shipped, env_setting(kTorchIndexSetting, session.env).value));
  fs::path cache = session.layout.cache_dir() / kTorchIndexCacheName;
  TorchIndexSnapshot snapshot;
  snapshot.base = shipped.index_url;
  snapshot.fetched_at = static_cast<std::int64_t>(std::time(nullptr));
  CUDAENV_TRY_ASSIGN(auto fetch, fetch_settings(session.env, session.fs, false));
  Status read = read_index(shipped, snapshot, index_options(fetch));
  if (!read) {
    // Keep what an earlier refresh learned; record the failure so that the next runs wait a while.
    auto old = session.fs.read_file(cache);
    auto previous = old ? parse_snapshot(*old) : std::nullopt;
    snapshot = previous && previous->base == shipped.index_url ? *previous : TorchIndexSnapshot{};
    snapshot.base = shipped.index_url;
    snapshot.failed_at = static_cast<std::int64_t>(std::time(nullptr));
    snapshot.failure = read.error().message;
  }
  std::error_code ignored;
  fs::create_directories(cache.parent_path(), ignored);
  CUDAENV_TRY(write_file_atomically(cache, render_snapshot(snapshot)));
  if (!read) return read.take_error();
  return snapshot;
}

CommandHandler configure_torch_index_refresh(CLI::App& command) {
  command.group("");  // internal: run by `cudaenv torch`
  return [](const Setup& setup) -> Result<int> {
    auto refreshed = refresh_torch_index(setup.session());
    if (!refreshed) return refreshed.take_error();
    return 0;
  };
}

}  // namespace cudaenv
