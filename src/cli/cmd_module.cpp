// `module`: modulefiles (Lmod or Tcl) for installed toolkits, for clusters.
#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "modules/modulefile.h"
#include "util/file_system.h"
#include "util/output.h"

namespace cudaenv {

namespace {

struct ModuleOptions {
  std::string version;
  std::string format = "lmod";
  std::string to;
  bool all = false;
};

Result<std::vector<Toolkit>> chosen_toolkits(const Session& session, const ModuleOptions& options) {
  if (options.all) {
    std::vector<Toolkit> present;
    for (const Toolkit& toolkit : session.toolkits()) {
      if (toolkit.present) present.push_back(toolkit);
      else print_warning("skipping CUDA " + toolkit.name + ": " + toolkit.home.string() + " has no bin/ folder");
    }
    if (present.empty()) return make_error("no toolkits are installed", "cudaenv install 12.4, or cudaenv add --scan");
    return present;
  }
  if (options.version == "system") {
    return make_error("the system toolkit is not managed by cudaenv", "register it first: cudaenv add /usr/local/cuda-X.Y",
                      ErrorKind::usage);
  }
  CUDAENV_TRY_ASSIGN(auto toolkit, session.resolve_argument(options.version, "module"));
  return std::vector<Toolkit>{toolkit};
}

Status write_modulefile(const std::filesystem::path& dir, const Toolkit& toolkit, ModuleFormat format, const std::string& text) {
  std::filesystem::path file = dir / modulefile_name(toolkit, format);
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) return make_error("cannot create " + file.parent_path().string() + ": " + ec.message(), "check --to DIR");
  CUDAENV_TRY(write_file_atomically(file, text));
  print_note("wrote " + file.string());
  return ok_status();
}

Result<int> run_module(const Session& session, const ModuleOptions& options) {
  if (options.all == !options.version.empty()) {
    return make_error("give either a VERSION or --all", "e.g. cudaenv module 12.4 --to ~/modulefiles", ErrorKind::usage);
  }
  CUDAENV_TRY_ASSIGN(auto toolkits, chosen_toolkits(session, options));
  ModuleFormat format = options.format == "tcl" ? ModuleFormat::tcl : ModuleFormat::lmod;
  std::filesystem::path dir = options.to;
  if (dir.empty() && options.all) dir = session.layout.user_root / "modulefiles";
  for (const Toolkit& toolkit : toolkits) {
    CUDAENV_TRY_ASSIGN(auto text, render_modulefile(toolkit, format, "written by cudaenv " CUDAENV_VERSION_STRING));
    if (dir.empty()) std::fputs(text.c_str(), stdout);
    else CUDAENV_TRY(write_modulefile(dir, toolkit, format, text));
  }
  if (!dir.empty()) print_note("use them with: module use " + dir.string());
  return 0;
}

}  // namespace

CommandHandler configure_module(CLI::App& command) {
  auto options = std::make_shared<ModuleOptions>();
  command.add_option("version", options->version, "Installed version to describe");
  command.add_option("--format", options->format, "lmod (Lua, default) or tcl (Environment Modules)")
      ->check(CLI::IsMember({"lmod", "tcl"}));
  command.add_option("--to", options->to, "Write DIR/cuda/<version>[.lua] instead of printing");
  command.add_flag("--all", options->all, "One modulefile per installed version (default DIR: $CUDAENV_ROOT/modulefiles)");
  return [options](const Setup& setup) { return run_module(setup.session(), *options); };
}

}  // namespace cudaenv
