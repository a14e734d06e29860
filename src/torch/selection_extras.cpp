#include "cli/selection_extras.h"

#include <algorithm>
#include <cstdio>

#include "core/hook_state.h"
#include "core/settings_table.h"
#include "core/version_detect.h"
#include "doctor/facts.h"
#include "doctor/host_compiler.h"
#include "replay/record.h"
#include "torch/choose.h"
#include "torch/discovery.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

std::optional<Version> toolkit_cuda(const Session& session, const Toolkit& toolkit) {
  return toolkit.version ? toolkit.version : shipped_toolkit_version(session.fs, toolkit.home);
}

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
                        const EnvMap& env) {
  std::string inputs;
  for (const std::string& part :
       {shipped.text, snapshot.value_or("-"), query.cuda ? query.cuda->str() : "-", query.torch.value_or("-"),
        query.driver.value_or("-"), archs_text(query), env_get(env, kTorchIndexVariable).value_or("-")}) {
    inputs += part;
    inputs += '\0';
  }
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(replay_hash(inputs.data(), inputs.size())));
  return key;
}

// The memo's answer for `key`: the backend, "-" for none; nullopt where it holds none, or an
// answer no choice gives (a damaged file is worked out again).
std::optional<std::string> recalled(const std::string& memo, const std::string& key) {
  for (const std::string& line : split(memo, '\n')) {
    if (line.size() <= key.size() + 1 || !starts_with(line, key) || line[key.size()] != ' ') continue;
    std::string answer = line.substr(key.size() + 1);
    bool cuda_tag = starts_with(answer, "cu") && answer.size() > 2 &&
                    std::all_of(answer.begin() + 2, answer.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (answer == "-" || answer == "cpu" || cuda_tag) return answer;
  }
  return std::nullopt;
}

// The memo with `key`'s answer last, the oldest entries dropped past kBackendMemoEntries.
std::string remembered(const std::string& memo, const std::string& key, const std::string& answer) {
  std::vector<std::string> lines;
  for (const std::string& line : split(memo, '\n')) {
    if (!line.empty()) lines.push_back(line);
  }
  if (lines.size() >= kBackendMemoEntries) lines.erase(lines.begin(), lines.end() - (kBackendMemoEntries - 1));
  lines.push_back(key + " " + answer);
  return join(lines, "\n") + "\n";
}

// choose_torch() over the shipped table, with the cached index merged in.
std::optional<std::string> chosen_backend(const DataFile& shipped, const std::optional<std::string>& snapshot_text,
                                          const TorchQuery& query, const EnvMap& env) {
  auto matrix = parse_torch_matrix(shipped.path, shipped.text);
  if (!matrix || !use_index_base(*matrix, env_get(env, kTorchIndexVariable))) return std::nullopt;
  auto snapshot = snapshot_text ? snapshot_of(*snapshot_text, matrix->index_url) : std::nullopt;
  if (snapshot) *matrix = merge_index(*matrix, *snapshot, "cache");
  return uv_torch_backend(*matrix, "auto", query);
}

// chosen_backend(), remembered in CUDAENV_ROOT/cache: parsing the shipped table costs a prompt
// four times the rest of the hook, and the answer changes only with what it rests on.
std::optional<std::string> memoized_backend(const Session& session, const DataFile& shipped,
                                            const std::optional<std::string>& snapshot, const TorchQuery& query) {
  fs::path path = session.layout.cache_dir() / kBackendMemoName;
  auto read = session.fs.read_file(path);
  std::string memo = read ? *read : "";
  std::string key = backend_key(shipped, snapshot, query, session.env);
  if (auto answer = recalled(memo, key)) return *answer == "-" ? std::nullopt : answer;
  std::optional<std::string> backend = chosen_backend(shipped, snapshot, query, session.env);
  // A memo not kept costs the next prompt only time.
  (void)write_file_atomically(path, remembered(memo, key, backend.value_or("-")));
  return backend;
}

}  // namespace

Result<SelectionExtras> selection_extras(const Session& session, const Selection& selection) {
  SelectionExtras extras;
  const std::optional<CudaToml>& project = selection.project;
  std::optional<Setting> named = target_setting(session.env, project);
  if (named && is_valid_target_name(named->value)) {
    // Where the file is now, and where one saved later would be.
    for (const fs::path& dir : session.layout.target_dirs()) extras.inputs.push_back(dir / (named->value + ".toml"));
  }
  CUDAENV_TRY_ASSIGN(auto target, select_target(session.fs, session.env, session.layout, project));
  if (target) {
    bool project_sets_arch = project && !project->arch.empty();
    extras.target_variables = target_variables(target->target, without_hook_changes(session.env), project_sets_arch);
  }
  std::string setting = project ? project->torch_backend : "auto";
  if (setting != "auto") {
    extras.uv_torch_backend = uv_torch_backend(TorchMatrix{}, setting, TorchQuery{});
    return extras;
  }
  TorchQuery query;
  query.cuda = toolkit_cuda(session, selection.toolkit);
  if (project) query.torch = project->torch_version;
  if (target) {
    query.driver = target->target.driver.text;
    query.archs = target_capabilities(target->target);
  } else if (auto driver = read_driver(session.fs, session.env); driver && *driver) {
    // A bad CUDAENV_DRIVER_VERSION is `cudaenv torch`'s and doctor's to report, not a prompt's.
    query.driver = (*driver)->version;
  }
  auto shipped = session.data.read(kTorchMatrixFileName);
  if (!shipped) return extras;
  // What `cudaenv torch` last read from the index, whatever its age (refreshing is its job);
  // CUDAENV_TORCH_OFFLINE=1 keeps to the shipped table, as it does for `cudaenv torch`.
  std::optional<std::string> snapshot;
  if (!is_on(env_setting(kTorchOfflineSetting, session.env))) {
    fs::path cache = session.layout.cache_dir() / kTorchIndexCacheName;
    extras.inputs.push_back(cache);
    if (auto text = session.fs.read_file(cache)) snapshot = std::move(*text);
  }
  extras.uv_torch_backend = memoized_backend(session, *shipped, snapshot, query);
  return extras;
}

Status check_toolkit_compiler(const Session& session, const std::string& compiler, const Toolkit* toolkit) {
  HostCompiler found = identify_compiler(session.fs, session.env, compiler);
  std::optional<HostCompilerLimits> limits;
  if (toolkit) limits = read_host_config(session.fs, toolkit->home);
  if (toolkit && !limits) {
    auto cuda = toolkit_cuda(session, *toolkit);
    CUDAENV_TRY_ASSIGN(auto facts, load_cuda_facts(session.data));
    limits = cuda ? facts_limits(facts, *cuda) : HostCompilerLimits{};
  }
  return check_host_compiler(found, limits.value_or(HostCompilerLimits{}), toolkit ? toolkit->name : "",
                             installed_gcc_majors(session.fs, session.env));
}

Status check_selection_compiler(const Session& session, const Selection& selection) {
  if (!selection.project || !selection.project->host_compiler) return ok_status();
  Status checked = check_toolkit_compiler(session, *selection.project->host_compiler, &selection.toolkit);
  if (checked) return checked;
  Error error = checked.take_error();
  error.message = selection.project->path.string() + ": " + error.message;
  return error;
}

}  // namespace cudaenv
