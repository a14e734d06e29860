#include "util/working_dir.h"

#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/file_system.h"

namespace cudaenv {

Result<std::filesystem::path> logical_working_dir(const EnvMap& env) {
  char dir[PATH_MAX];
  if (!::getcwd(dir, sizeof dir)) {
    return make_error(std::string("cannot read the current directory: ") + std::strerror(errno),
                      "cd into a directory that exists");
  }
  auto pwd = env_get(env, "PWD");
  if (pwd && pwd->front() == '/' && same_file(*pwd, dir)) return std::filesystem::path(*pwd);
  return std::filesystem::path(dir);
}

}  // namespace cudaenv
