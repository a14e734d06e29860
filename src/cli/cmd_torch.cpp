// `cudaenv torch`: the torch build, wheel index and install command for the active toolkit.
// Only the answer goes to stdout, so `$(cudaenv torch)` runs; everything else is stderr.
#include <cstdio>
#include <ctime>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "core/data_dir.h"
#include "core/settings_table.h"
#include "core/version_detect.h"
#include "extensions/advice.h"
#include "extensions/cached_lookup.h"
#include "store/registry.h"
#include "torch/discovery.h"
#include "torch/render.h"
#include "util/json_reader.h"
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
  std::string with;                // extensions: flash-attn,xformers==0.0.35
  std::string python = "python3";  // whose CPython tag and platform prebuilt wheels must fit
};

bool offline_asked(const Session& session, const TorchOptions& options) {
  return options.offline || is_on(env_setting(kTorchOfflineSetting, session.env));
}

Error no_toolkit_error(const Error& selection_error) {
  return make_error("no CUDA toolkit to match torch to: " + selection_error.message,
                    "name the CUDA version: `cudaenv torch --cuda 12.4`\n"
                    "or select a toolkit: `cudaenv install 12.4 && cudaenv use 12.4` (or `cudaenv add PATH`)\n"
                    "or take the CPU build: `cudaenv torch --cpu`");
}

Result<Version> parse_option_version(const std::string& option, const std::string& text, const char* example) {
  if (auto version = parse_version(text)) return *version;
  return make_error(option + " '" + text + "' is not a version", std::string("write it like ") + example, ErrorKind::usage);
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
                          "write major.minor, e.g. --cuda 12.4", ErrorKind::usage);
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
      bool overridden = reading->source == kDriverVersionSetting.variable;
      query.driver_origin = overridden ? kDriverVersionSetting.variable : "read from " + reading->source.string();
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
                        ErrorKind::usage);
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
  if (offline_asked(session, options)) return shipped;
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

// The extensions --with names, and the torch one of them requires (vLLM pins it) where the
// user named none: every extension must fit the torch the command installs.
struct WithRequest {
  ExtensionCatalog catalog;
  std::vector<ExtensionRequest> requests;
};

Result<std::optional<WithRequest>> read_with(const Session& session, const TorchOptions& options) {
  if (options.with.empty()) return std::optional<WithRequest>();
  if (options.format != "command") {
    return make_error("--with prints one install command; it has no --format " + options.format + " form",
                      "drop --format, or drop --with", ErrorKind::usage);
  }
  CUDAENV_TRY_ASSIGN(auto catalog, load_extension_catalog(session.data));
  CUDAENV_TRY_ASSIGN(auto requests, parse_extension_requests(catalog, options.with));
  return std::optional<WithRequest>(WithRequest{std::move(catalog), std::move(requests)});
}

// A torch the user or cuda.toml named stays: an extension that requires another is then built.
Status torch_for_extensions(const WithRequest& with, TorchQuery& query) {
  bool named = query.torch.has_value();
  for (const ExtensionRequest& request : with.requests) {
    auto torch = required_torch(with.catalog, request);
    if (!torch || named) continue;
    if (query.torch && query.torch != torch->str()) {
      return make_error(
          request.name + " requires torch " + torch->str() + ", and " + query.torch_origin + ": torch " + *query.torch,
          "install them in separate environments", ErrorKind::usage);
    }
    query.torch = torch->str();
    query.torch_origin = request.name + (request.version ? " " + *request.version : "") + " requires it";
  }
  return ok_status();
}

// CPython tag and wheel platform of `python`: "cp312", "linux_x86_64"; empty where it does not say.
std::pair<std::string, std::string> python_tags(const Session& session, const std::string& python) {
  auto ran = run_capture(
      {python, "-c", "import sys, sysconfig; print('cp%d%d' % sys.version_info[:2]); print(sysconfig.get_platform())"},
      std::chrono::seconds(20), &session.env);
  if (!ran || ran->exit_code != 0) return {};
  std::vector<std::string> lines = split(trim(ran->out), '\n');
  if (lines.size() != 2) return {};
  std::string platform(trim(lines[1]));
  for (char& c : platform) {
    if (c == '-' || c == '.') c = '_';
  }
  return {std::string(trim(lines[0])), platform};
}

Result<ExtensionTarget> extension_target(const Session& session, const TorchOptions& options, const TorchQuery& query,
                                         const TorchChoice& choice, const TorchInstall& install, const WithRequest& with,
                                         const std::optional<CudaToml>& project) {
  ExtensionTarget target;
  target.torch = choice.release.torch;
  target.cuda = choice.variant;
  target.index_url = install.index_url;
  target.cxx11_abi = !(choice.release.torch < with.catalog.cxx11_from);
  bool wheels = std::any_of(with.requests.begin(), with.requests.end(), [&](const ExtensionRequest& request) {
    return with.catalog.find(request.name)->kind == Publishing::wheels;
  });
  if (wheels) std::tie(target.python_tag, target.platform) = python_tags(session, options.python);
  if (wheels && target.python_tag.empty())
    print_warning("cannot ask " + options.python + " for its CPython tag: pass --python PATH");
  target.archs = query.archs;
  target.archs_source = query.archs_origin;
  if (target.archs.empty() && project) {
    for (const std::string& entry : project->arch) {
      if (auto arch = parse_arch_entry(entry)) target.archs.push_back(arch->capability);
    }
    target.archs_source = "arch in " + project->path.string();
  }
  target.memory_available = memory_available(session.fs);
  target.cores = usable_cores();
  target.toolkit_installed = choice.variant && toolkit_installed(session.toolkits(), *choice.variant);
  CUDAENV_TRY_ASSIGN(auto mirror, extension_mirror(env_setting(kExtensionWheelsSetting, session.env)));
  target.mirror = mirror;
  return target;
}

struct WithPlan {
  std::vector<ExtensionAdvice> advice;
  std::string command;
};

Result<WithPlan> plan_with(const Session& session, const TorchOptions& options, const TorchInstall& install,
                           const WithRequest& with, const ExtensionTarget& target, Installer installer) {
  std::vector<ExtensionRequest> requests;
  for (const ExtensionRequest& request : with.requests) {
    bool pinned =
        std::any_of(install.pins.begin(), install.pins.end(), [&](const TorchPin& pin) { return pin.package == request.name; });
    if (pinned) print_note(request.name + " is in the command already, paired with torch " + target.torch.str());
    else requests.push_back(request);
  }
  std::vector<std::string> urls = wanted_wheels(with.catalog, requests, target);
  WheelAnswers answers;
  if (offline_asked(session, options)) {
    for (const std::string& url : urls) answers[url] = {WheelPresence::unknown, "not asked (offline)"};
  } else if (!urls.empty()) {
    answers = CachedWheelLookup(session.fs, session.layout.cache_dir(), session.env, options.refresh).check(urls);
  }
  WithPlan plan;
  for (const ExtensionRequest& request : requests) {
    ExtensionAdvice advice = advise(*with.catalog.find(request.name), request, target, answers);
    if (advice.kind == AdviceKind::none)
      return make_error(advice.why, "pick a CUDA build of torch: drop --cpu", ErrorKind::usage);
    for (const std::string& unreachable : advice.unreachable) print_warning("could not reach " + unreachable);
    print_note(advice.why);
    if (advice.torch_required) {
      print_note("or take the torch it requires: `cudaenv torch --torch " + advice.torch_required->str() + " --with " +
                 request.name + "`");
    }
    if (advice.build && target.archs.empty()) {
      print_note("the " + request.name + " build targets every arch torch picks (slow): pass --arch for the GPUs it runs on");
    }
    plan.advice.push_back(std::move(advice));
  }
  std::vector<std::string> pins;
  for (const TorchPin& pin : install.pins) pins.push_back(pin_text(pin));
  plan.command = render_with(installer == Installer::uv ? "uv pip" : "pip", pins, install.index_url, plan.advice);
  return plan;
}

std::string with_json(const std::string& torch_json, const WithPlan& plan, Installer installer) {
  auto out = nlohmann::ordered_json::parse(torch_json);
  out["command"] = plan.command;
  nlohmann::ordered_json extensions = nlohmann::ordered_json::array();
  for (const ExtensionAdvice& advice : plan.advice) {
    const char* kinds[] = {"pytorch-index", "wheel", "pypi", "build", "none"};
    extensions.push_back(
        {{"package", advice.package},
         {"answer", kinds[static_cast<int>(advice.kind)]},
         {"requirement", advice.requirement},
         {"build_command", advice.build ? render_build(installer == Installer::uv ? "uv pip" : "pip", *advice.build) : ""},
         {"why", advice.why},
         {"unreachable", advice.unreachable}});
  }
  out["extensions"] = extensions;
  return json_text(out);
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
  CUDAENV_TRY_ASSIGN(auto with, read_with(session, options));
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
  if (with) CUDAENV_TRY(torch_for_extensions(*with, query));
  CUDAENV_TRY(resolve_target(session, options, project, query));
  CUDAENV_TRY(resolve_driver(session, options, query));
  CUDAENV_TRY(resolve_archs(options, query));
  CUDAENV_TRY_ASSIGN(auto shipped, load_torch_matrix(session.data));
  CUDAENV_TRY(use_index_base(shipped, env_setting(kTorchIndexSetting, session.env).value));
  std::optional<TorchMatrix> matrix = discovered_matrix(session, options, shipped);
  CUDAENV_TRY_ASSIGN(auto choice, choose_torch(*matrix, query));
  CUDAENV_TRY_ASSIGN(auto install, plan_torch_install(*matrix, choice, packages, !options.packages.empty()));
  print_note(summary(query, choice));
  for (const std::string& warning : choice.warnings) print_warning(warning);
  for (const std::string& note : choice.notes) print_note(note);
  for (const std::string& note : install.notes) print_note(note);
  Installer installer = options.installer == "uv" ? Installer::uv : Installer::pip;
  std::string output;
  if (with) {
    CUDAENV_TRY_ASSIGN(auto target, extension_target(session, options, query, choice, install, *with, project));
    CUDAENV_TRY_ASSIGN(auto plan, plan_with(session, options, install, *with, target, installer));
    output = options.json ? with_json(render_json({query, choice, install, installer}), plan, installer) : plan.command + "\n";
  } else if (options.json) output = render_json({query, choice, install, installer});
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
  command.add_option("--with", options->with,
                     "Compiled extensions to install that fit this torch: flash-attn,xformers (PKG==VERSION pins one)");
  command.add_option("--python", options->python,
                     "The Python whose CPython tag prebuilt extension wheels must fit (default: python3 on PATH)");
  return [options](const Setup& setup) { return run_torch(setup.session(), *options); };
}

}  // namespace cudaenv
