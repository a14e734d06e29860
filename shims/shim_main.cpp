// cudaenv-shim: every file in shims/ is this program under another name. It resolves
// the active toolkit (no shell, no subprocess, no network), sets that toolkit's
// environment and execs the real program in its place.
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/toolkit_env.h"
#include "util/strings.h"
#include "util/working_dir.h"

extern char** environ;

namespace cudaenv {
namespace {

int fail(const Error& error) {
  std::fprintf(stderr, "cudaenv: error: %s\n", error.message.c_str());
  if (!error.hint.empty()) std::fprintf(stderr, "  %s\n", error.hint.c_str());
  return error.exit_code;
}

// A shim in <root>/shims knows its root even where CUDAENV_ROOT is not exported (IDEs, cron).
void default_root_from_location(EnvMap& env) {
  if (env_get(env, "CUDAENV_ROOT")) return;
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return;
  fs::path dir = fs::path(std::string(self, static_cast<size_t>(n))).parent_path();
  if (dir.filename() == "shims") env["CUDAENV_ROOT"] = dir.parent_path().string();
}

bool same_bytes(const char* a_path, const char* b_path) {
  int a = ::open(a_path, O_RDONLY | O_CLOEXEC), b = ::open(b_path, O_RDONLY | O_CLOEXEC);
  bool same = a >= 0 && b >= 0;
  static char a_block[1 << 16], b_block[1 << 16];
  while (same) {
    ssize_t n = ::read(a, a_block, sizeof a_block);
    same = n >= 0 && ::read(b, b_block, sizeof b_block) == n && std::memcmp(a_block, b_block, static_cast<size_t>(n)) == 0;
    if (n <= 0) break;
  }
  if (a >= 0) ::close(a);
  if (b >= 0) ::close(b);
  return same;
}

// Whether `candidate` is this shim under another name: a hard link or a symlink to it (the
// same inode), or a copy, as rehash makes across file systems (the same size and bytes; only
// a file of exactly the shim's size is read). Running it would start the shim again.
bool is_a_shim(const fs::path& candidate) {
  struct stat a {}, b {};
  if (::stat(candidate.c_str(), &a) != 0 || ::stat("/proc/self/exe", &b) != 0) return false;
  if (a.st_dev == b.st_dev && a.st_ino == b.st_ino) return true;
  return a.st_size == b.st_size && same_bytes(candidate.c_str(), "/proc/self/exe");
}

Result<fs::path> real_program(const RealFileSystem& disk, const EnvMap& env, const Layout& layout,
                              const Selection& selection, const std::string& program) {
  std::optional<fs::path> path;
  if (selection.toolkit.source == ToolkitSource::system) {
    path = find_on_path(disk, env, program, layout.shims_dir());
    if (path && is_a_shim(*path)) {
      return make_error(path->string() + " is a cudaenv shim outside " + layout.shims_dir().string(),
                        "remove it from PATH; the system toolkit must be a real one", 1);
    }
  } else if (disk.is_executable(selection.toolkit.bin_dir() / program)) {
    path = selection.toolkit.bin_dir() / program;
    if (is_a_shim(*path)) {
      return make_error(path->string() + " is a cudaenv shim (a link or copy of cudaenv-shim), not the real " + program +
                            " of CUDA " + selection.toolkit.name,
                        "the toolkit " + selection.toolkit.home.string() + " is damaged: reinstall or re-register it", 1);
    }
  }
  if (path) return *path;
  std::string having = join(toolkits_with_program(disk, list_toolkits(disk, layout), program), ", ");
  return make_error(program + " is not part of CUDA " + selection.toolkit.name + " (" + selection.request.origin() + ")",
                    having.empty() ? "no installed toolkit has it" : "it is in: " + having, 127);
}

int run_shim(int argc, char** argv) {
  std::string program = fs::path(argc > 0 ? argv[0] : "").filename().string();
  if (program.empty() || program == "cudaenv-shim") {
    return fail(make_error("cudaenv-shim runs as a shim, named like the program it stands for",
                           "run `cudaenv rehash` to create the shims", 2));
  }
  EnvMap env = env_from_environ(environ);
  EnvMap lookup = env;  // the derived root is for finding toolkits, not for the child
  default_root_from_location(lookup);
  auto layout = layout_from_env(lookup);
  if (!layout) return fail(layout.error());
  auto cwd = logical_working_dir(env);
  if (!cwd) return fail(cwd.error());
  RealFileSystem disk;
  auto selection = select_toolkit(disk, env, *cwd, *layout);
  if (!selection) return fail(selection.error());
  auto path = real_program(disk, env, *layout, *selection, program);
  if (!path) return fail(path.error());
  apply_env_change(selection_env_change(*selection), env);
  std::vector<std::string> env_strings = env_to_strings(env);
  std::vector<char*> envp = c_string_array(env_strings);
  // nvcc finds nvcc.profile (and so its include and library folders) beside argv[0].
  std::string real_argv0 = path->string();
  argv[0] = real_argv0.data();
  ::execve(path->c_str(), argv, envp.data());
  return fail(make_error("cannot run " + path->string() + ": " + std::strerror(errno), "", errno == ENOENT ? 127 : 126));
}

}  // namespace
}  // namespace cudaenv

int main(int argc, char** argv) { return cudaenv::run_shim(argc, argv); }
