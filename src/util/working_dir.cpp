#include "util/working_dir.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cudaenv {

static bool same_directory(const char* a, const char* b) {
  struct stat sa {}, sb {};
  return ::stat(a, &sa) == 0 && ::stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

Result<std::filesystem::path> logical_working_dir(const EnvMap& env) {
  char physical[PATH_MAX];
  if (!::getcwd(physical, sizeof physical)) {
    return make_error(std::string("cannot read the current directory: ") + std::strerror(errno),
                      "cd into a directory that exists");
  }
  auto pwd = env_get(env, "PWD");
  if (pwd && (*pwd)[0] == '/' && same_directory(pwd->c_str(), physical)) return std::filesystem::path(*pwd);
  return std::filesystem::path(physical);
}

}  // namespace cudaenv
