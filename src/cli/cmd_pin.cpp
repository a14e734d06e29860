// `use` and `global`: the two commands that record a version request in a file.
#include <sys/stat.h>

#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "util/file_system.h"
#include "util/output.h"

namespace cudaenv {

namespace {

// The file `use` writes: cuda.toml itself, or the regular file named cuda.toml that a
// symlinked one points to (a file shared in a monorepo, kept with its mode). A link to
// anything else is refused, so a cloned repository cannot aim `use` at another file.
Result<std::filesystem::path> pinned_file(const std::filesystem::path& file) {
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return file;
  std::error_code ec;
  std::filesystem::path target = std::filesystem::canonical(file, ec);
  if (ec || target.filename() != kProjectFileName || !std::filesystem::is_regular_file(target, ec)) {
    std::filesystem::path link = std::filesystem::read_symlink(file, ec);
    return make_error(file.string() + " is a symlink to " + link.string() + ", which is not a regular file named " +
                          kProjectFileName + "; nothing was written",
                      "replace the link with a file of its own: rm " + file.string() + " && cudaenv use VERSION");
  }
  return target;
}

Result<int> run_use(const Session& session, const std::string& version) {
  CUDAENV_TRY_ASSIGN(auto toolkit, session.resolve_argument(version, "use"));
  CUDAENV_TRY_ASSIGN(auto file, pinned_file(session.cwd / kProjectFileName));
  std::string content = new_cuda_toml(version);
  if (session.fs.kind(file) != EntryKind::missing) {
    CUDAENV_TRY_ASSIGN(auto existing, session.fs.read_file(file));
    CUDAENV_TRY_ASSIGN(auto edited, set_cuda_toml_version(file, existing, version));
    content = std::move(edited);
  }
  CUDAENV_TRY(write_file_atomically(file, content));
  print_note("CUDA " + version + " (" + toolkit.name + ") pinned in " + file.string());
  if (auto env_version = env_get(session.env, "CUDAENV_VERSION")) {
    print_warning("CUDAENV_VERSION=" + *env_version + " still overrides it in this shell; `cudaenv shell --unset` to drop it");
  }
  return 0;
}

// `use --unset`: ./cuda.toml loses its version (and goes when nothing else is in it).
Result<int> run_use_unset(const Session& session) {
  std::filesystem::path file = session.cwd / kProjectFileName;
  auto existing = session.fs.read_file(file);
  if (!existing) {
    auto nearest = find_project_file(session.fs, session.cwd);
    return make_error("no cuda.toml in " + session.cwd.string(), nearest ? "the pin here comes from " + nearest->string() +
                                                                               ": run `cudaenv use --unset` in " +
                                                                               nearest->parent_path().string()
                                                                         : "nothing pins a version here");
  }
  CUDAENV_TRY_ASSIGN(auto edited, unset_cuda_toml_version(file, *existing));
  if (!edited) {
    std::error_code ec;
    std::filesystem::remove(file, ec);
    if (ec) return make_error("cannot remove " + file.string() + ": " + ec.message(), "check the folder's permissions");
    print_note("removed " + file.string() + ": it held only the pin");
  } else if (*edited == *existing) {
    print_note(file.string() + " pins no version; nothing to unset");
  } else {
    CUDAENV_TRY(write_file_atomically(file, *edited));
    print_note("unpinned " + file.string() + "; its other settings stay");
  }
  return 0;
}

struct GlobalOptions {
  std::string version;
  bool unset = false;
};

Result<int> show_global(const Session& session) {
  CUDAENV_TRY_ASSIGN(auto selected, select_request(session.fs, {}, session.layout, std::nullopt));
  const Request& request = selected;
  if (request.kind == OriginKind::fallback) {
    std::printf("system\n");
    print_note("(no default set; `cudaenv global VERSION` sets one)");
  } else {
    std::printf("%s\n", request.value.c_str());
  }
  return 0;
}

Result<int> run_global(const Session& session, const GlobalOptions& options) {
  std::filesystem::path file = session.layout.global_version_file();
  if (options.unset) {
    std::error_code ec;
    std::filesystem::remove(file, ec);
    if (ec) return make_error("cannot remove " + file.string() + ": " + ec.message());
    return 0;
  }
  if (options.version.empty()) return show_global(session);
  CUDAENV_TRY_ASSIGN(auto toolkit, session.resolve_argument(options.version, "global"));
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  CUDAENV_TRY(write_file_atomically(file, options.version + "\n"));
  print_note("default CUDA set to " + options.version + " (" + toolkit.name + ") in " + file.string());
  return 0;
}

}  // namespace

struct UseOptions {
  std::string version;
  bool unset = false;
};

CommandHandler configure_use(CLI::App& command) {
  auto options = std::make_shared<UseOptions>();
  auto* version =
      command.add_option("version", options->version, "Version to pin: 12, 12.1, 12.1.1, a registered name, or system");
  auto* unset =
      command.add_flag("--unset", options->unset, "Remove the pin from ./cuda.toml (the file goes if nothing else is in it)");
  version->excludes(unset);
  return [options](const Setup& setup) -> Result<int> {
    if (options->unset) return run_use_unset(setup.session());
    if (options->version.empty()) {
      return make_error("version is required", "e.g. cudaenv use 12.1, or cudaenv use --unset to remove the pin", 2);
    }
    return run_use(setup.session(), options->version);
  };
}

CommandHandler configure_global(CLI::App& command) {
  auto options = std::make_shared<GlobalOptions>();
  command.add_option("version", options->version, "Version to make the default");
  command.add_flag("--unset", options->unset, "Remove the default (fall back to the system toolkit)");
  command.footer("The default applies where no CUDAENV_VERSION and no cuda.toml say otherwise.");
  return [options](const Setup& setup) { return run_global(setup.session(), *options); };
}

}  // namespace cudaenv
