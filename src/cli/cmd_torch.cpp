// `cudaenv torch`: the torch build, wheel index and install command for the active toolkit.
// Only the answer goes to stdout, so `$(cudaenv torch)` runs; everything else is stderr.
#include <cstdio>
#include <ctime>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "core/version_detect.h"
#include "store/registry.h"
#include "torch/discovery.h"
#include "torch/render.h"
#include "util/data_dir.h"
#include "util/output.h"
#include "util/process.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

struct TorchOptions {
  std::string torch;
  std::string cuda;
  std::string driver;
  bool cpu = false;
  std::string installer = "pip";
  std::string format = "command";
  bool json = false;
  std::string packages;
  std::string archs;
  bool offline = false;
  bool refresh = false;
};

Error no_toolkit_error(const Error& selection_error) {
  return make_error("no CUDA toolkit to match torch to: " + selection_error.message,
                    "name the CUDA version: `cudaenv torch --cuda 12.4`\n"
                    "or select a toolkit: `cudaenv install 12.4 && cudaenv use 12.4` (or `cudaenv add PATH`)\n"
                    "or take the CPU build: `cudaenv torch --cpu`");
}

Result<Version> parse_option_version(const std::string& option, const std::string& text, const char* example) {
  if (auto version = parse_version(text)) return *version;
  return make_error(option + " '" + text + "' is not a version", std::string("write it like ") + example, 2);
}

// The toolkit's CUDA from its name, else from what it ships (version.json, cuda.h, nvcc).
Result<Version> toolkit_cuda(const FileSystemView& fs, const Toolkit& toolkit) {
  if (toolkit.version) return *toolkit.version;
  return detect_toolkit_version(fs, toolkit.home);
}

// Fills the CUDA side of the query and returns the project file that applies here.
Result<std::optional<CudaToml>> resolve_cuda(const Session& session, const TorchOptions& options, TorchQuery& query) {
  if (options.cpu || !options.cuda.empty()) {
    if (!options.cuda.empty()) {
      CUDAENV_TRY_ASSIGN(auto cuda, parse_option_version("--cuda", options.cuda, "--cuda 12.4"));
      if (cuda.parts.size() < 2) {
        return make_error("--cuda " + options.cuda + " names no minor version, and torch builds are per minor",
                          "write major.minor, e.g. --cuda 12.4", 2);
      }
      query.cuda = cuda;
      query.cuda_origin = "--cuda";
    }
    auto project = load_project(session.fs, session.cwd);
    if (project) return std::move(project.value());
    print_warning(project.error().message);
    return std::optional<CudaToml>();
  }
  auto selection = session.select();
  if (!selection) return no_toolkit_error(selection.error());
  auto cuda = toolkit_cuda(session.fs, selection->toolkit);
  if (!cuda) {
    Error error = cuda.take_error();
    error.hint += "\nor name the CUDA version: `cudaenv torch --cuda 12.4`";
    return error;
  }
  query.cuda = *cuda;
  query.cuda_origin = "toolkit " + selection->toolkit.name + ", " + selection->request.origin();
  return selection->project;
}

// Where a target is selected, its driver and GPUs are what the build runs on, unless --driver and
// --arch say otherwise.
Status resolve_target(const Session& session, const TorchOptions& options, const std::optional<CudaToml>& project,
                      TorchQuery& query) {
  CUDAENV_TRY_ASSIGN(auto selected, select_target(session.fs, session.env, session.layout, project));
  if (!selected || options.cpu) return ok_status();
  std::string origin = "target " + selected->target.name + ", set by " + selected->setting.origin();
  if (options.driver.empty()) {
    query.driver = selected->target.driver.text;
    query.driver_origin = origin;
  }
  if (options.archs.empty()) {
    query.archs = target_capabilities(selected->target);
    query.archs_origin = origin;
  }
  return ok_status();
}

Status resolve_driver(const Session& session, const TorchOptions& options, TorchQuery& query) {
  if (query.driver) return ok_status();
  if (!options.driver.empty()) {
    CUDAENV_TRY(parse_option_version("--driver", options.driver, "--driver 550.54.14"));
    query.driver = options.driver;
    query.driver_origin = "--driver";
  } else if (!options.cpu) {
    CUDAENV_TRY_ASSIGN(auto reading, read_driver(session.fs, session.env));
    if (reading) {
      query.driver = reading->version;
      query.driver_origin =
          reading->source == kDriverOverrideVariable ? kDriverOverrideVariable : "read from " + reading->source.string();
    }
  }
  return ok_status();
}

// --arch 7.0,8.6: the GPUs the build must have kernels for.
Status resolve_archs(const TorchOptions& options, TorchQuery& query) {
  if (options.archs.empty()) return ok_status();
  for (const std::string& item : split(options.archs, ',')) {
    auto arch = parse_compute_capability(trim(item));
    if (!arch) {
      return make_error("--arch '" + std::string(trim(item)) + "' is not a compute capability",
                        "write major.minor as nvidia-smi --query-gpu=compute_cap prints it, e.g. --arch 7.0 or --arch 7.0,8.6",
                        2);
    }
    query.archs.push_back(*arch);
  }
  query.archs_origin = "--arch";
  return ok_status();
}

// cudaenv-fetch reads the index (cudaenv itself links no libcurl); it writes the cache.
void run_refresh(const Session& session) {
  auto helper = locate_program("cudaenv-fetch");
  if (!helper) return;
  (void)run_capture({helper->string(), "torch-index-refresh"}, std::chrono::minutes(5), &session.env);
}

// The shipped table brought up to date with the index: from the cache while it is fresh (a day),
// else read again. Where the index cannot be read, the last snapshot or the shipped table, said once.
TorchMatrix discovered_matrix(const Session& session, const TorchOptions& options, const TorchMatrix& shipped) {
  if (options.offline || env_get(session.env, "CUDAENV_TORCH_OFFLINE").value_or("").size()) return shipped;
  fs::path cache = session.layout.cache_dir() / kTorchIndexCacheName;
  auto snapshot = cached_snapshot(session.fs, cache, shipped.index_url);
  auto now = static_cast<std::int64_t>(std::time(nullptr));
  auto fresh = [&](const std::optional<TorchIndexSnapshot>& s) {
    return s && s->fetched_at > 0 && s->fetched_at > s->failed_at && now - s->fetched_at < kTorchIndexTtlSeconds;
  };
  if (!options.refresh && fresh(snapshot)) return merge_index(shipped, *snapshot, "cache");
  bool failed_lately =
      snapshot && snapshot->failed_at > snapshot->fetched_at && now - snapshot->failed_at < kTorchIndexRetrySeconds;
  if (options.refresh || !failed_lately) {
    run_refresh(session);
    auto refreshed = cached_snapshot(session.fs, cache, shipped.index_url);
    if (fresh(refreshed)) return merge_index(shipped, *refreshed, "index");
    if (refreshed) snapshot = refreshed;
  }
  std::string why = snapshot && !snapshot->failure.empty() ? snapshot->failure : "cudaenv-fetch could not run";
  if (snapshot && snapshot->fetched_at > 0) {
    print_note("cannot read the PyTorch index (" + why + "); using what it listed on its last read (" + cache.string() + ")");
    return merge_index(shipped, *snapshot, "cache");
  }
  print_note("cannot read the PyTorch index (" + why + "); using the shipped table " + shipped.path.string());
  return shipped;
}

std::string summary(const TorchQuery& query, const TorchChoice& choice) {
  std::string text = "torch " + choice.release.torch.str() + " (" + query.torch_origin + "), ";
  if (!choice.variant) return text + "CPU build";
  text += cuda_variant_tag(*choice.variant) + " build (" + match_label(choice.match) + " match for CUDA " + query.cuda->str() +
          ": " + query.cuda_origin + ")";
  if (query.driver) text += "; driver " + *query.driver + " (" + query.driver_origin + ")";
  return text;
}

Result<int> run_torch(const Session& session, const TorchOptions& options) {
  std::vector<std::string> packages{"torch", "torchvision", "torchaudio"};
  if (!options.packages.empty()) {
    CUDAENV_TRY_ASSIGN(auto parsed, parse_torch_packages(options.packages));
    packages = parsed;
  }
  TorchQuery query;
  query.cpu = options.cpu;
  CUDAENV_TRY_ASSIGN(auto project, resolve_cuda(session, options, query));
  if (!options.torch.empty()) {
    query.torch = options.torch;
    query.torch_origin = "--torch";
  } else if (project && project->torch_version) {
    query.torch = project->torch_version;
    query.torch_origin = "[torch] version in " + project->path.string();
  } else {
    query.torch_origin = "the newest that fits";
  }
  CUDAENV_TRY(resolve_target(session, options, project, query));
  CUDAENV_TRY(resolve_driver(session, options, query));
  CUDAENV_TRY(resolve_archs(options, query));
  CUDAENV_TRY_ASSIGN(auto shipped, load_torch_matrix(session.data));
  CUDAENV_TRY(use_index_base(shipped, env_get(session.env, kTorchIndexVariable)));
  std::optional<TorchMatrix> matrix = discovered_matrix(session, options, shipped);
  CUDAENV_TRY_ASSIGN(auto choice, choose_torch(*matrix, query));
  CUDAENV_TRY_ASSIGN(auto install, plan_torch_install(*matrix, choice, packages, !options.packages.empty()));
  print_note(summary(query, choice));
  for (const std::string& warning : choice.warnings) print_warning(warning);
  for (const std::string& note : choice.notes) print_note(note);
  for (const std::string& note : install.notes) print_note(note);
  Installer installer = options.installer == "uv" ? Installer::uv : Installer::pip;
  std::string output;
  if (options.json) output = render_json({query, choice, install, installer});
  else if (options.format == "requirements") output = render_requirements(install);
  else if (options.format == "pyproject") output = render_pyproject(install);
  else output = render_command(installer, install) + "\n";
  std::fputs(output.c_str(), stdout);
  return 0;
}

}  // namespace

CommandHandler configure_torch(CLI::App& command) {
  auto options = std::make_shared<TorchOptions>();
  command.add_option("--torch", options->torch, "torch release (default: cuda.toml [torch] version, else the newest that fits)");
  auto* cuda = command.add_option("--cuda", options->cuda, "CUDA version to match (default: the active toolkit's)");
  command.add_option("--driver", options->driver,
                     "NVIDIA driver version (default: CUDAENV_DRIVER_VERSION, else read from /sys or /proc)");
  command.add_flag("--cpu", options->cpu, "The CPU-only build")->excludes(cuda);
  command.add_option("--installer", options->installer, "pip (default) or uv")->check(CLI::IsMember({"pip", "uv"}));
  command.add_option("--format", options->format, "command (default), requirements or pyproject")
      ->check(CLI::IsMember({"command", "requirements", "pyproject"}));
  command.add_flag("--json", options->json, "Every field of the choice as JSON");
  command.add_option("--arch", options->archs, "GPU compute capabilities the build must have kernels for: 7.0 or 7.0,8.6");
  command.add_flag("--offline", options->offline, "Use the shipped table only, never the index (also CUDAENV_TORCH_OFFLINE=1)");
  command.add_flag("--refresh", options->refresh, "Read the index again now, whatever the cache's age");
  command.add_option("--packages", options->packages, "Which of torch,torchvision,torchaudio (default: all three)");
  return [options](const Setup& setup) { return run_torch(setup.session(), *options); };
}

}  // namespace cudaenv
