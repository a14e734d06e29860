// `cudaenv target save|list|show|remove`: the GPU machines saved to resolve for elsewhere
// (store/targets.h). `save` reads the driver the way doctor does (a child process, with a timeout).
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "doctor/driver_fit.h"
#include "util/output.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// cuInit alone takes a second on a machine with many GPUs.
constexpr std::chrono::seconds kProbeTimeout{30};

struct SaveOptions {
  std::string name;
  std::string driver;             // --driver 535.104.05: written by hand
  std::vector<std::string> gpus;  // --gpu 8.0, repeatable
  std::string cuda;               // --cuda 12.2: what the driver runs, where the shipped facts don't know it
};

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "this machine";
  return terminal_safe(name);
}

// The newest CUDA `driver` runs by the shipped facts: for a target written by hand.
Result<std::optional<Version>> cuda_of_driver(const Session& session, const DriverVersion& driver) {
  CUDAENV_TRY_ASSIGN(auto facts, load_cuda_facts(session.data));
  DriverProbe probe;
  probe.version = driver;
  const CudaRelease* release = newest_runnable(probe, facts);
  return release ? std::optional<Version>(major_minor(release->version)) : std::nullopt;
}

// This machine's driver and GPUs, as doctor's probe reads them; an error where there is none.
Status read_this_machine(const Session& session, Target& target) {
  DriverProbe driver = probe_driver(session.fs, session.env, kProbeTimeout);
  std::string by_hand =
      "on a machine without the GPUs, write it by hand: `cudaenv target save " + target.name + " --driver 535.104.05 --gpu 8.0`";
  if (!driver.version) {
    return make_error("cannot read this machine's NVIDIA driver version" +
                          (driver.problem.empty() ? std::string() : " (" + driver.problem + ")"),
                      "run it on the GPU machine, or " + by_hand);
  }
  if (!driver.problem.empty() || driver.gpus.empty()) {
    std::string why = driver.problem.empty() ? "the driver lists no GPU" : driver.problem;
    return make_error("cannot read this machine's GPUs: " + why, "`cudaenv doctor` says more; or " + by_hand);
  }
  target.driver = *driver.version;
  if (driver.cuda) target.cuda = major_minor(*driver.cuda);
  for (const Gpu& gpu : driver.gpus) target.gpus.push_back(TargetGpu{gpu.name, gpu.capability});
  target.saved_from = "probed on " + host_name();
  return ok_status();
}

Status read_options(const Session& session, const SaveOptions& options, Target& target) {
  if (!options.driver.empty()) {
    auto driver = parse_driver_version(options.driver);
    if (!driver)
      return make_error("--driver " + terminal_safe(options.driver) + " is not an NVIDIA driver version",
                        "e.g. --driver 535.104.05", ErrorKind::usage);
    target.driver = *driver;
    target.cuda.reset();
    target.saved_from = "written by hand";
  }
  if (!options.gpus.empty()) {
    target.gpus.clear();
    for (const std::string& text : options.gpus) {
      auto capability = parse_compute_capability(text);
      if (!capability || capability->major() < 1 || capability->major() > 99 || capability->minor() > 9) {
        return make_error("--gpu " + terminal_safe(text) + " is not a compute capability",
                          "write major.minor as nvidia-smi --query-gpu=compute_cap prints it, e.g. --gpu 8.0", ErrorKind::usage);
      }
      target.gpus.push_back(TargetGpu{"", *capability});
    }
    if (target.gpus.size() > kMaxTargetGpus)
      return make_error("more than " + std::to_string(kMaxTargetGpus) + " --gpu", "", ErrorKind::usage);
  }
  if (!options.cuda.empty()) {
    auto cuda = parse_version(options.cuda);
    if (!cuda || cuda->parts.size() != 2)
      return make_error("--cuda " + terminal_safe(options.cuda) + " is not a CUDA major.minor", "e.g. --cuda 12.2",
                        ErrorKind::usage);
    target.cuda = cuda;
  } else if (!target.cuda) {
    CUDAENV_TRY_ASSIGN(target.cuda, cuda_of_driver(session, target.driver));
    if (!target.cuda) {
      return make_error("the shipped facts know no CUDA release that driver " + target.driver.text + " runs",
                        "say which it runs (nvidia-smi prints it): --cuda 12.2", ErrorKind::usage);
    }
  }
  return ok_status();
}

std::string gpus_text(const Target& target) {
  if (target.gpus.empty()) return "no GPUs";
  std::vector<std::string> parts;
  for (const TargetGpu& gpu : target.gpus) {
    parts.push_back((gpu.name.empty() ? "" : terminal_safe(gpu.name) + " ") + "(" + gpu.capability.str() + ")");
  }
  return join(parts, ", ");
}

std::string summary(const Target& target) {
  return "driver " + target.driver.text + (target.cuda ? ", CUDA " + target.cuda->str() : "") + ", " + gpus_text(target);
}

Result<int> run_save(const Session& session, const SaveOptions& options) {
  if (!is_valid_target_name(options.name)) {
    Error error = invalid_target_name(options.name, "target save");
    error.kind = ErrorKind::usage;
    return error;
  }
  Target target;
  target.name = options.name;
  if (options.driver.empty()) CUDAENV_TRY(read_this_machine(session, target));
  CUDAENV_TRY(read_options(session, options, target));
  CUDAENV_TRY_ASSIGN(auto path, save_target(session.layout, target));
  std::printf("saved target %s: %s\n  %s\n", target.name.c_str(), summary(target).c_str(), terminal_safe(path.string()).c_str());
  print_note("select it with [target] name = \"" + target.name + "\" in cuda.toml, or CUDAENV_TARGET=" + target.name);
  return 0;
}

Result<int> run_list(const Session& session) {
  auto project = load_project(session.fs, session.cwd);
  auto selected = target_setting(session.env, project ? *project : std::nullopt);
  std::vector<TargetFile> files = list_targets(session.fs, session.layout);
  if (files.empty()) {
    print_note("no targets saved: save one on a GPU machine with `cudaenv target save NAME`");
    return 0;
  }
  for (const TargetFile& file : files) {
    bool active = !file.shadowed && selected && selected->value == file.name;
    std::string line = std::string(active ? "* " : "  ") + file.name + "  ";
    line += file.target ? summary(*file.target) : "unreadable: " + file.target.error().message;
    if (file.shared) line += "  (shared: " + terminal_safe(file.path.parent_path().string()) + ")";
    if (file.shadowed) line += "  (hidden by yours)";
    std::printf("%s\n", line.c_str());
  }
  return 0;
}

Result<int> run_show(const Session& session, const std::string& name) {
  Target target;
  std::string origin;
  if (name.empty()) {
    CUDAENV_TRY_ASSIGN(auto selected, session.selected_target());
    if (!selected)
      return make_error("no target is selected here", "name one: `cudaenv target show NAME` (`cudaenv target list`)");
    target = std::move(selected->target);
    origin = selected->setting.origin();
  } else {
    CUDAENV_TRY_ASSIGN(target, load_target(session.fs, session.layout, name));
  }
  std::printf("target %s%s\n  file: %s\n", target.name.c_str(),
              origin.empty() ? "" : (" (set by " + terminal_safe(origin) + ")").c_str(),
              terminal_safe(target.path.string()).c_str());
  if (!target.saved_from.empty()) std::printf("  saved: %s\n", terminal_safe(target.saved_from).c_str());
  std::printf("  driver: %s%s\n", target.driver.text.c_str(),
              target.cuda ? (" (runs CUDA up to " + target.cuda->str() + ")").c_str() : "");
  for (size_t i = 0; i < target.gpus.size(); ++i) {
    const TargetGpu& gpu = target.gpus[i];
    std::printf("  GPU %zu: %s(compute capability %s)\n", i, gpu.name.empty() ? "" : (terminal_safe(gpu.name) + " ").c_str(),
                gpu.capability.str().c_str());
  }
  std::printf("  exports, where not set already:\n");
  for (const auto& [variable, value] : target_variables(target, {}, false))
    std::printf("    %s=%s\n", variable.c_str(), value.c_str());
  return 0;
}

Result<int> run_remove(const Session& session, const std::string& name) {
  CUDAENV_TRY_ASSIGN(auto path, remove_target(session.fs, session.layout, name));
  std::printf("removed target %s (%s)\n", name.c_str(), terminal_safe(path.string()).c_str());
  return 0;
}

}  // namespace

CommandHandler configure_target(CLI::App& command) {
  command.require_subcommand(1);
  auto save_options = std::make_shared<SaveOptions>();
  CLI::App* save = command.add_subcommand("save", "Save this machine's driver and GPUs (or --driver and --gpu) as a target");
  save->add_option("name", save_options->name, "The target's name, e.g. a100")->required();
  save->add_option("--driver", save_options->driver, "Write it by hand: the NVIDIA driver version, e.g. 535.104.05");
  save->add_option("--gpu", save_options->gpus, "A GPU's compute capability, e.g. 8.0 (repeatable)")->allow_extra_args(false);
  save->add_option("--cuda", save_options->cuda, "The newest CUDA the driver runs (default: from the driver)");
  CLI::App* list = command.add_subcommand("list", "List the saved targets, yours and the shared root's");
  auto shown = std::make_shared<std::string>();
  CLI::App* show = command.add_subcommand("show", "Show a target (default: the selected one) and what it exports");
  show->add_option("name", *shown, "The target's name");
  auto removed = std::make_shared<std::string>();
  CLI::App* remove = command.add_subcommand("remove", "Remove a saved target of yours");
  remove->add_option("name", *removed, "The target's name")->required();
  command.footer(
      "Select a target with [target] name = \"a100\" in cuda.toml, or CUDAENV_TARGET=a100: doctor, torch, install\n"
      "and the environment of the hook, exec and env then resolve for its driver and GPUs, not this machine's.\n"
      "Targets live in $CUDAENV_ROOT/targets; $CUDAENV_SHARED_ROOT/targets holds a cluster's, read-only.");
  return [save, save_options, list, show, shown, removed](const Setup& setup) -> Result<int> {
    const Session& session = setup.session();
    if (save->parsed()) return run_save(session, *save_options);
    if (list->parsed()) return run_list(session);
    if (show->parsed()) return run_show(session, *shown);
    return run_remove(session, *removed);
  };
}

}  // namespace cudaenv
