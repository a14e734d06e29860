#include "cli/selection_extras.h"

#include "core/version_detect.h"
#include "doctor/facts.h"
#include "doctor/host_compiler.h"
#include "torch/choose.h"
#include "torch/discovery.h"

namespace cudaenv {

namespace {

std::optional<Version> toolkit_cuda(const Session& session, const Toolkit& toolkit) {
  return toolkit.version ? toolkit.version : shipped_toolkit_version(session.fs, toolkit.home);
}

}  // namespace

SelectionExtras selection_extras(const Session& session, const Selection& selection) {
  SelectionExtras extras;
  const std::optional<CudaToml>& project = selection.project;
  std::string setting = project ? project->torch_backend : "auto";
  TorchQuery query;
  query.cuda = toolkit_cuda(session, selection.toolkit);
  if (project) query.torch = project->torch_version;
  // A bad CUDAENV_DRIVER_VERSION is `cudaenv torch`'s and doctor's to report, not a prompt's.
  if (auto driver = read_driver(session.fs, session.env); driver && *driver) query.driver = (*driver)->version;
  auto matrix = load_torch_matrix(session.data);
  if (!matrix || !use_index_base(*matrix, env_get(session.env, kTorchIndexVariable))) return extras;
  // What `cudaenv torch` last read from the index, whatever its age (refreshing is its job);
  // CUDAENV_TORCH_OFFLINE=1 keeps to the shipped table, as it does for `cudaenv torch`.
  if (!env_get(session.env, "CUDAENV_TORCH_OFFLINE")) {
    fs::path cache = session.layout.cache_dir() / kTorchIndexCacheName;
    extras.inputs.push_back(cache);
    if (auto snapshot = cached_snapshot(session.fs, cache, matrix->index_url)) *matrix = merge_index(*matrix, *snapshot, "cache");
  }
  extras.uv_torch_backend = uv_torch_backend(*matrix, setting, query);
  return extras;
}

Status check_toolkit_compiler(const Session& session, const std::string& compiler, const Toolkit& toolkit) {
  HostCompiler found = identify_compiler(session.fs, session.env, compiler);
  auto limits = read_host_config(session.fs, toolkit.home);
  if (!limits) {
    auto cuda = toolkit_cuda(session, toolkit);
    CUDAENV_TRY_ASSIGN(auto facts, load_cuda_facts(session.data));
    limits = cuda ? facts_limits(facts, *cuda) : HostCompilerLimits{};
  }
  return check_host_compiler(found, *limits, toolkit.name, installed_gcc_majors(session.fs, session.env));
}

Status check_selection_compiler(const Session& session, const Selection& selection) {
  if (!selection.project || !selection.project->host_compiler) return ok_status();
  Status checked = check_toolkit_compiler(session, *selection.project->host_compiler, selection.toolkit);
  if (checked) return checked;
  Error error = checked.take_error();
  error.message = selection.project->path.string() + ": " + error.message;
  return error;
}

}  // namespace cudaenv
