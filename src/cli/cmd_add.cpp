#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "core/settings_table.h"
#include "store/registry.h"
#include "store/rehash.h"
#include "util/output.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

struct AddOptions {
  std::string path;
  std::string as_name;
  bool scan = false;
};

void report(const Registration& registration) {
  if (registration.already) print_note("CUDA " + registration.name + " is already registered -> " + registration.home.string());
  else print_note("registered CUDA " + registration.name + " -> " + registration.home.string());
}

std::vector<std::filesystem::path> scan_dirs(const Session& session) {
  std::vector<std::filesystem::path> dirs;
  for (const std::string& dir : split(env_setting(kScanDirsSetting, session.env).value, ':')) {
    if (!dir.empty()) dirs.emplace_back(dir);
  }
  return dirs;
}

Result<int> add_scanned(const Session& session) {
  auto found = scan_for_toolkits(session.fs, scan_dirs(session));
  if (found.empty()) {
    print_note("no toolkits found in " + env_setting(kScanDirsSetting, session.env).value + " (looked for cuda-*/bin/nvcc)");
    return 0;
  }
  int status = 0;
  for (const auto& home : found) {
    auto registration = register_toolkit(session.fs, session.layout, home, std::nullopt);
    if (registration) {
      report(*registration);
    } else {
      print_error(registration.error());
      status = 1;
    }
  }
  return status;
}

Result<int> run_add(const Session& session, const AddOptions& options) {
  if (options.scan == !options.path.empty()) {
    return make_error("give either a PATH or --scan", "e.g. cudaenv add /usr/local/cuda-12.4, or cudaenv add --scan",
                      ErrorKind::usage);
  }
  if (options.scan && !options.as_name.empty()) {
    return make_error("--as names one toolkit; it cannot be used with --scan", "cudaenv add PATH --as NAME", ErrorKind::usage);
  }
  int status = 0;
  if (options.scan) {
    auto scanned = add_scanned(session);
    if (!scanned) return scanned;
    status = *scanned;
  } else {
    std::optional<std::string> as_name;
    if (!options.as_name.empty()) as_name = options.as_name;
    CUDAENV_TRY_ASSIGN(auto registration, register_toolkit(session.fs, session.layout, options.path, as_name));
    report(registration);
  }
  auto rehashed = rehash_after_change(session.fs, session.layout);
  if (!rehashed) return rehashed.take_error();
  return status;
}

}  // namespace

CommandHandler configure_add(CLI::App& command) {
  auto options = std::make_shared<AddOptions>();
  command.add_option("path", options->path, "Folder of the toolkit (the one holding bin/nvcc)");
  command.add_option("--as", options->as_name, "Name to register it under (default: its CUDA version)");
  command.add_flag("--scan", options->scan, "Register every /usr/local/cuda-* (CUDAENV_SCAN_DIRS to change)");
  return [options](const Setup& setup) { return run_add(setup.session(), *options); };
}

}  // namespace cudaenv
