#include "torch/selection_extras.h"

#include <algorithm>
#include <cstdio>

#include "core/hook_state.h"
#include "core/settings_table.h"
#include "core/version_detect.h"
#include "replay/record.h"
#include "store/targets.h"
#include "torch/choose.h"
#include "torch/discovery.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

constexpr const char* kBackendMemoName = "uv-torch-backend";
constexpr size_t kBackendMemoEntries = 64;

std::string archs_text(const TorchQuery& query) {
  std::string text = "-";
  for (const ComputeCapability& arch : query.archs) text += arch.str() + ",";
  return text;
}

// What the answer rests on: the shipped table, the cached index, the query and the index base,
// hashed as the shims' records are (replay/record.h).
std::string backend_key(const DataFile& shipped, const std::optional<std::string>& snapshot, const TorchQuery& query,
                        const std::string& index_base) {
  std::string inputs;
  for (const std::string& part : {shipped.text, snapshot.value_or("-"), query.cuda ? query.cuda->str() : "-",
                                  query.torch.value_or("-"), query.driver.value_or("-"), archs_text(query), index_base}) {
    inputs += part;
    inputs += '\0';
  }
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(replay_hash(inputs.data(), inputs.size())));
  return key;
}

}  // namespace

std::optional<std::string> recalled_backend(const std::string& memo, const std::string& key) {
  for (const std::string& line : split(memo, '\n')) {
    if (line.size() <= key.size() + 1 || !starts_with(line, key) || line[key.size()] != ' ') continue;
    std::string answer = line.substr(key.size() + 1);
    bool cuda_tag = starts_with(answer, "cu") && answer.size() > 2 &&
                    std::all_of(answer.begin() + 2, answer.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (answer == "-" || answer == "cpu" || cuda_tag) return answer;
  }
  return std::nullopt;
}

std::string remembered_backend(const std::string& memo, const std::string& key, const std::string& answer, size_t limit) {
  std::vector<std::string> lines;
  for (const std::string& line : split(memo, '\n')) {
    if (!line.empty()) lines.push_back(line);
  }
  if (lines.size() >= limit) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(limit - 1));
  lines.push_back(key + " " + answer);
  return join(lines, "\n") + "\n";
}

namespace {

// choose_torch() over the shipped table, with the cached index merged in.
std::optional<std::string> chosen_backend(const DataFile& shipped, const std::optional<std::string>& snapshot_text,
                                          const TorchQuery& query, const std::string& index_base) {
  auto matrix = parse_torch_matrix(shipped.path, shipped.text);
  if (!matrix || !use_index_base(*matrix, index_base)) return std::nullopt;
  auto snapshot = snapshot_text ? snapshot_of(*snapshot_text, matrix->index_url) : std::nullopt;
  if (snapshot) *matrix = merge_index(*matrix, *snapshot, "cache");
  return uv_torch_backend(*matrix, "auto", query);
}

// chosen_backend(), remembered in CUDAENV_ROOT/cache: parsing the shipped table costs a prompt
// four times the rest of the hook, and the answer changes only with what it rests on.
std::optional<std::string> memoized_backend(const FileSystemView& fs, const Layout& layout, const DataFile& shipped,
                                            const std::optional<std::string>& snapshot, const TorchQuery& query,
                                            const std::string& index_base) {
  fs::path path = layout.cache_dir() / kBackendMemoName;
  auto read = fs.read_file(path);
  std::string memo = read ? *read : "";
  std::string key = backend_key(shipped, snapshot, query, index_base);
  if (auto answer = recalled_backend(memo, key)) return *answer == "-" ? std::nullopt : answer;
  std::optional<std::string> backend = chosen_backend(shipped, snapshot, query, index_base);
  // A memo not kept costs the next prompt only time.
  (void)write_file_atomically(path, remembered_backend(memo, key, backend.value_or("-"), kBackendMemoEntries));
  return backend;
}

}  // namespace

Result<SelectionExtras> selection_extras(const FileSystemView& fs, const EnvMap& env, const Layout& layout, const DataFiles& data,
                                         const Selection& selection) {
  SelectionExtras extras;
  const std::optional<CudaToml>& project = selection.project;
  std::optional<Setting> named = target_setting(env, project);
  if (named && is_valid_target_name(named->value)) {
    // Where the file is now, and where one saved later would be.
    for (const fs::path& dir : layout.target_dirs()) extras.inputs.push_back(dir / (named->value + ".toml"));
  }
  CUDAENV_TRY_ASSIGN(auto target, select_target(fs, env, layout, project));
  if (target) {
    bool project_sets_arch = project && !project->arch.empty();
    extras.target_variables = target_variables(target->target, without_hook_changes(env), project_sets_arch);
  }
  std::string setting = project ? project->torch_backend : "auto";
  if (setting != "auto") {
    extras.uv_torch_backend = uv_torch_backend(TorchMatrix{}, setting, TorchQuery{});
    return extras;
  }
  TorchQuery query;
  query.cuda = toolkit_cuda_version(fs, selection.toolkit);
  if (project) query.torch = project->torch_version;
  if (target) {
    query.driver = target->target.driver.text;
    query.archs = target_capabilities(target->target);
  } else if (auto driver = read_driver(fs, env); driver && *driver) {
    // A bad CUDAENV_DRIVER_VERSION is `cudaenv torch`'s and doctor's to report, not a prompt's.
    query.driver = (*driver)->version;
  }
  auto shipped = data.read(kTorchMatrixFileName);
  if (!shipped) return extras;
  // What `cudaenv torch` last read from the index, whatever its age (refreshing is its job);
  // CUDAENV_TORCH_OFFLINE=1 keeps to the shipped table, as it does for `cudaenv torch`.
  std::optional<std::string> snapshot;
  if (!is_on(env_setting(kTorchOfflineSetting, env))) {
    fs::path cache = layout.cache_dir() / kTorchIndexCacheName;
    extras.inputs.push_back(cache);
    if (auto text = fs.read_file(cache)) snapshot = std::move(*text);
  }
  std::string index_base = env_setting(kTorchIndexSetting, env).value;
  extras.uv_torch_backend = memoized_backend(fs, layout, *shipped, snapshot, query, index_base);
  return extras;
}

}  // namespace cudaenv
