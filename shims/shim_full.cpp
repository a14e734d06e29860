// cudaenv-shim-full: the shim's full resolver, for what the lean one in shim.c leaves to it
// (errors, unusual files or PATH folders): the same selection `cudaenv exec` and the rest use,
// and the same error lines. Run as `cudaenv-shim-full --from-shim SHIM ARGV0 ARGS...`,
// SHIM being the shim that handed over; run under a program's name it is a shim itself.
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/program.h"
#include "core/toolkit_env.h"
#include "lean/lean_os.h"
#include "util/data_dir.h"
#include "util/output.h"
#include "util/strings.h"
#include "util/working_dir.h"

extern char** environ;

namespace cudaenv {
namespace {

int fail(const Error& error) {
  print_error(error);
  return error.exit_code;
}

int run_shim(int argc, char** argv) {
  auto self = running_program();
  fs::path shim = self ? *self : fs::path("/proc/self/exe");
  if (argc >= 3 && std::strcmp(argv[1], "--from-shim") == 0) {
    shim = argv[2];
    argc -= 3;
    argv += 3;
  }
  std::string program = fs::path(argc > 0 ? argv[0] : "").filename().string();
  if (program.empty() || program == "cudaenv-shim" || program == "cudaenv-shim-full") {
    return fail(make_error("cudaenv-shim runs as a shim, named like the program it stands for",
                           "run `cudaenv rehash` to create the shims", 2));
  }
  EnvMap env = env_from_environ(environ);
  auto layout = layout_for_shim(env, shim);
  if (!layout) return fail(layout.error());
  auto cwd = logical_working_dir(env);
  if (!cwd) return fail(cwd.error());
  RealFileSystem disk;
  auto selection = select_toolkit(disk, env, *cwd, *layout);
  if (!selection) return fail(selection.error());
  // Running the shim, or this program, again would only come back here.
  auto is_a_shim = [&](const fs::path& candidate) {
    return lean_is_same_program(candidate.c_str(), shim.c_str()) || lean_is_same_program(candidate.c_str(), "/proc/self/exe");
  };
  auto path = program_for_selection(disk, env, *layout, *selection, program, is_a_shim);
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
