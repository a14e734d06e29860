#include "torch/discovery.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "util/json_reader.h"

namespace cudaenv {

namespace {

constexpr int kSnapshotFormat = 1;

nlohmann::json strings_json(const std::set<std::string>& values) {
  return nlohmann::json(std::vector<std::string>(values.begin(), values.end()));
}

Result<std::set<std::string>> string_set_at(const JsonValue& object, std::string_view key) {
  CUDAENV_TRY_ASSIGN(auto values, object.strings_at(key));
  return std::set<std::string>(values.begin(), values.end());
}

Result<std::map<std::string, std::string>> pairs_at(const JsonValue& object, std::string_view key) {
  std::map<std::string, std::string> pairs;
  CUDAENV_TRY_ASSIGN(auto member, object.find(key));
  if (!member) return pairs;
  CUDAENV_TRY_ASSIGN(auto members, member->members());
  for (const auto& [name, value] : members) {
    CUDAENV_TRY_ASSIGN(auto text, value.string());
    pairs[name] = text;
  }
  return pairs;
}

Result<IndexRelease> release_of(const JsonValue& entry) {
  IndexRelease release;
  CUDAENV_TRY_ASSIGN(auto text, entry.string_at("version"));
  auto version = parse_version(text);
  if (!version || version->parts.size() != 3) return entry.error("version is not x.y.z");
  release.version = *version;
  CUDAENV_TRY_ASSIGN(auto cuda, entry.strings_at("cuda"));
  for (const std::string& item : cuda) {
    auto parsed = parse_version(item);
    if (!parsed || parsed->parts.size() != 2) return entry.error("cuda holds a non-CUDA version");
    release.cuda.push_back(*parsed);
  }
  std::sort(release.cuda.begin(), release.cuda.end());
  CUDAENV_TRY_ASSIGN(auto cpu, entry.optional_boolean("cpu"));
  release.cpu = cpu.value_or(false);
  CUDAENV_TRY_ASSIGN(auto python, string_set_at(entry, "python"));
  release.python_tags = python;
  CUDAENV_TRY_ASSIGN(auto platforms, string_set_at(entry, "platforms"));
  release.platforms = platforms;
  return release;
}

Result<TorchIndexSnapshot> read_snapshot(std::string_view text) {
  CUDAENV_TRY_ASSIGN(auto document, JsonValue::parse(text, kTorchIndexCacheName));
  TorchIndexSnapshot snapshot;
  CUDAENV_TRY_ASSIGN(auto format, document.at("format"));
  auto number = format.integer();
  if (!number || *number != kSnapshotFormat) return document.error("unknown format");
  CUDAENV_TRY_ASSIGN(auto base, document.string_at("base"));
  snapshot.base = base;
  for (auto [key, field] : {std::pair{"fetched_at", &snapshot.fetched_at}, std::pair{"failed_at", &snapshot.failed_at}}) {
    CUDAENV_TRY_ASSIGN(auto member, document.find(key));
    if (!member) continue;
    CUDAENV_TRY_ASSIGN(auto value, member->integer());
    *field = value;
  }
  CUDAENV_TRY_ASSIGN(auto failure, document.optional_string("failure"));
  snapshot.failure = failure.value_or("");
  CUDAENV_TRY_ASSIGN(auto torch, document.find("torch"));
  if (torch) {
    CUDAENV_TRY_ASSIGN(auto entries, torch->elements());
    for (const JsonValue& entry : entries) {
      CUDAENV_TRY_ASSIGN(auto release, release_of(entry));
      snapshot.torch.push_back(std::move(release));
    }
  }
  auto vision = string_set_at(document, "torchvision");
  auto audio = string_set_at(document, "torchaudio");
  auto vision_for = pairs_at(document, "torchvision_for");
  auto audio_for = pairs_at(document, "torchaudio_for");
  if (!vision || !audio || !vision_for || !audio_for) return document.error("malformed pairing lists");
  snapshot.torchvision = *vision;
  snapshot.torchaudio = *audio;
  snapshot.torchvision_for = *vision_for;
  snapshot.torchaudio_for = *audio_for;
  return snapshot;
}

const TorchRelease* shipped_release(const TorchMatrix& shipped, const Version& torch) {
  for (const TorchRelease& release : shipped.releases) {
    if (release.torch == torch) return &release;
  }
  return nullptr;
}

std::optional<std::string> found(const std::map<std::string, std::string>& pairs, const std::string& torch) {
  auto it = pairs.find(torch);
  if (it == pairs.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::string render_snapshot(const TorchIndexSnapshot& snapshot) {
  nlohmann::json torch = nlohmann::json::array();
  for (const IndexRelease& release : snapshot.torch) {
    std::vector<std::string> cuda;
    for (const Version& version : release.cuda) cuda.push_back(version.str());
    torch.push_back({{"version", release.version.str()},
                     {"cuda", cuda},
                     {"cpu", release.cpu},
                     {"python", strings_json(release.python_tags)},
                     {"platforms", strings_json(release.platforms)}});
  }
  nlohmann::json json = {{"format", kSnapshotFormat},
                         {"base", snapshot.base},
                         {"fetched_at", snapshot.fetched_at},
                         {"torch", torch},
                         {"torchvision", strings_json(snapshot.torchvision)},
                         {"torchaudio", strings_json(snapshot.torchaudio)},
                         {"torchvision_for", snapshot.torchvision_for},
                         {"torchaudio_for", snapshot.torchaudio_for}};
  if (snapshot.failed_at) {
    json["failed_at"] = snapshot.failed_at;
    json["failure"] = snapshot.failure;
  }
  return json.dump(1) + "\n";
}

std::optional<TorchIndexSnapshot> parse_snapshot(std::string_view text) {
  auto snapshot = read_snapshot(text);
  if (!snapshot) return std::nullopt;
  return std::move(*snapshot);
}

std::vector<std::string> unpaired(const TorchMatrix& shipped, const std::set<std::string>& versions, bool torchaudio) {
  std::vector<std::string> missing;
  for (const std::string& version : versions) {
    bool paired = std::any_of(shipped.releases.begin(), shipped.releases.end(), [&](const TorchRelease& release) {
      return torchaudio ? release.torchaudio == version : release.torchvision == version;
    });
    if (!paired) missing.push_back(version);
  }
  return missing;
}

TorchMatrix merge_index(const TorchMatrix& shipped, const TorchIndexSnapshot& snapshot, const std::string& origin) {
  if (std::none_of(snapshot.torch.begin(), snapshot.torch.end(), [](const IndexRelease& r) { return !r.cuda.empty(); })) {
    return shipped;  // nothing learned: an empty or CPU-only proxy says nothing about CUDA builds
  }
  TorchMatrix merged = shipped;
  merged.releases.clear();
  for (const IndexRelease& listed : snapshot.torch) {
    if (listed.cuda.empty()) continue;
    std::string torch = listed.version.str();
    TorchRelease release;
    if (const TorchRelease* known = shipped_release(shipped, listed.version)) {
      release = *known;
    } else {
      release.torch = listed.version;
      release.pairing_origin = origin + " (no wheel metadata requires it)";
    }
    release.cuda = listed.cuda;
    release.origin = origin;
    release.python_tags.assign(listed.python_tags.begin(), listed.python_tags.end());
    release.platforms.assign(listed.platforms.begin(), listed.platforms.end());
    std::vector<Version> experimental;
    for (const Version& cuda : release.experimental) {
      if (std::find(release.cuda.begin(), release.cuda.end(), cuda) != release.cuda.end()) experimental.push_back(cuda);
    }
    release.experimental = experimental;
    if (std::find(release.cuda.begin(), release.cuda.end(), release.pypi_default) == release.cuda.end()) {
      release.pypi_default = release.cuda.back();  // unknown for a new release: the newest build stands in
    }
    auto vision = found(snapshot.torchvision_for, torch);
    auto audio = found(snapshot.torchaudio_for, torch);
    bool vision_known =
        !release.torchvision.empty() && (snapshot.torchvision.empty() || snapshot.torchvision.count(release.torchvision));
    if (!vision_known) release.torchvision = vision.value_or("");
    bool audio_known = release.torchaudio && (snapshot.torchaudio.empty() || snapshot.torchaudio.count(*release.torchaudio));
    if (!audio_known) release.torchaudio = audio;
    if ((!vision_known && vision) || (!audio_known && audio)) release.pairing_origin = origin + " (wheel metadata)";
    merged.releases.push_back(std::move(release));
  }
  return merged;
}

std::optional<TorchIndexSnapshot> snapshot_of(std::string_view text, const std::string& base) {
  auto snapshot = parse_snapshot(text);
  if (!snapshot || snapshot->base != base) return std::nullopt;
  return snapshot;
}

std::optional<TorchIndexSnapshot> cached_snapshot(const FileSystemView& fs, const std::filesystem::path& cache,
                                                  const std::string& base) {
  auto text = fs.read_file(cache);
  return text ? snapshot_of(*text, base) : std::nullopt;
}

}  // namespace cudaenv
