// `use` and `global`: the two commands that record a version request in a file.
#include <sys/stat.h>

#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "core/settings_table.h"
#include "doctor/host_compiler.h"
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

struct UseOptions {
  std::string version;
  bool unset = false;
  std::string host_compiler;
  bool unset_host_compiler = false;
};

// One [cuda] key of ./cuda.toml: set to a value, or removed.
struct KeyEdit {
  const char* key;
  std::optional<std::string> value;
};

// ./cuda.toml with `edits` made: written, or removed when nothing but comments is left. `said`
// gets what each edit did; the file returned is the one written (a symlink's target).
Result<fs::path> edit_project_file(const Session& session, const std::vector<KeyEdit>& edits, std::vector<std::string>& said) {
  CUDAENV_TRY_ASSIGN(auto file, pinned_file(session.cwd / kProjectFileName));
  bool exists = session.fs.kind(file) != EntryKind::missing;
  std::string text;
  if (exists) {
    CUDAENV_TRY_ASSIGN(text, session.fs.read_file(file));
  }
  std::optional<std::string> edited = text;
  for (const KeyEdit& edit : edits) {
    if (!edited) edited = "";
    if (edit.value) {
      CUDAENV_TRY_ASSIGN(edited, set_cuda_toml_key(file, *edited, edit.key, *edit.value));
    } else {
      std::string before = *edited;
      CUDAENV_TRY_ASSIGN(edited, unset_cuda_toml_key(file, before, edit.key));
      if (edited && *edited == before) {
        std::string what =
            std::string_view(edit.key) == "version" ? " pins no version" : " has no [cuda] " + std::string(edit.key);
        said.push_back(file.string() + what + "; nothing to unset");
      }
    }
  }
  if (!edited && exists) {
    std::error_code ec;
    std::filesystem::remove(file, ec);
    if (ec) return make_error("cannot remove " + file.string() + ": " + ec.message(), "check the folder's permissions");
    said.push_back("removed " + file.string() + ": nothing else was in it");
  } else if (edited && *edited != text) {
    CUDAENV_TRY(write_file_atomically(file, *edited));
  }
  return file;
}

Error no_project_file_error(const Session& session, const std::string& flag) {
  auto nearest = find_project_file(session.fs, session.cwd);
  return make_error("no cuda.toml in " + session.cwd.string(), nearest ? "the settings here come from " + nearest->string() +
                                                                             ": run `cudaenv use " + flag + "` in " +
                                                                             nearest->parent_path().string()
                                                                       : "nothing is set here");
}

Result<int> run_use(const Session& session, const UseOptions& options) {
  std::vector<KeyEdit> edits;
  std::optional<Toolkit> pinned;
  if (!options.version.empty()) {
    CUDAENV_TRY_ASSIGN(pinned, session.resolve_argument(options.version, "use"));
    edits.push_back({"version", options.version});
  }
  if (options.unset) edits.push_back({"version", std::nullopt});
  if (!options.host_compiler.empty()) {
    // Checked as `exec` checks it, against the toolkit the project will have: the one pinned
    // now, else the one selected here; with none, only that it is there.
    std::optional<Toolkit> toolkit = pinned;
    if (!toolkit) {
      if (auto selection = session.select()) toolkit = selection->toolkit;
    }
    CUDAENV_TRY(
        check_toolkit_compiler(session.fs, session.env, session.data, options.host_compiler, toolkit ? &*toolkit : nullptr));
    edits.push_back({"host_compiler", options.host_compiler});
  }
  if (options.unset_host_compiler) edits.push_back({"host_compiler", std::nullopt});
  bool only_removals = options.version.empty() && options.host_compiler.empty();
  if (only_removals && session.fs.kind(session.cwd / kProjectFileName) == EntryKind::missing) {
    return no_project_file_error(session, options.unset ? "--unset" : "--unset-host-compiler");
  }
  std::vector<std::string> said;
  CUDAENV_TRY_ASSIGN(auto file, edit_project_file(session, edits, said));
  if (pinned) said.insert(said.begin(), "CUDA " + options.version + " (" + pinned->name + ") pinned in " + file.string());
  if (options.unset && said.empty()) said.push_back("unpinned " + file.string());
  if (!options.host_compiler.empty()) said.push_back("host compiler " + options.host_compiler + " set in " + file.string());
  if (options.unset_host_compiler && said.empty()) said.push_back("host compiler removed from " + file.string());
  for (const std::string& line : said) print_note(line);
  if (auto env_version = env_get(session.env, kVersionSetting.variable); env_version && pinned) {
    print_warning("CUDAENV_VERSION=" + *env_version + " still overrides it in this shell; `cudaenv shell --unset` to drop it");
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

CommandHandler configure_use(CLI::App& command) {
  auto options = std::make_shared<UseOptions>();
  auto* version =
      command.add_option("version", options->version, "Version to pin: 12, 12.1, 12.1.1, a registered name, or system");
  auto* unset =
      command.add_flag("--unset", options->unset, "Remove the pin from ./cuda.toml (the file goes if nothing else is in it)");
  version->excludes(unset);
  auto* compiler = command.add_option("--host-compiler", options->host_compiler,
                                      "The compiler nvcc uses for host code, e.g. gcc-12 (a name on PATH or a path)");
  command.add_flag("--unset-host-compiler", options->unset_host_compiler, "Remove the host compiler from ./cuda.toml")
      ->excludes(compiler);
  return [options](const Setup& setup) -> Result<int> {
    if (options->version.empty() && !options->unset && options->host_compiler.empty() && !options->unset_host_compiler) {
      return make_error("version is required",
                        "e.g. cudaenv use 12.1, cudaenv use --host-compiler gcc-12, or cudaenv use --unset to remove the pin",
                        ErrorKind::usage);
    }
    return run_use(setup.session(), *options);
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
