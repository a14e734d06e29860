#include "util/working_dir.h"

#include <limits.h>

#include <cerrno>
#include <cstring>

#include "lean/lean_os.h"

namespace cudaenv {

Result<std::filesystem::path> logical_working_dir(const EnvMap& env) {
  char dir[PATH_MAX];
  auto pwd = env_get(env, "PWD");
  if (lean_logical_working_dir(pwd ? pwd->c_str() : nullptr, dir, sizeof dir) != 0) {
    return make_error(std::string("cannot read the current directory: ") + std::strerror(errno),
                      "cd into a directory that exists");
  }
  return std::filesystem::path(dir);
}

}  // namespace cudaenv
