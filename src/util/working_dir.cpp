#include "util/working_dir.h"

#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/file_system.h"

namespace cudaenv {

namespace {

// $PWD when it names the folder `physical` (or ".") by a path the system can still use.
bool usable_pwd(const std::optional<std::string>& pwd, const char* physical) {
  return pwd && !pwd->empty() && pwd->front() == '/' && pwd->size() < PATH_MAX && same_file(*pwd, physical);
}

}  // namespace

Result<std::filesystem::path> logical_working_dir(const EnvMap& env) {
  auto pwd = env_get(env, "PWD");
  char dir[PATH_MAX];
  if (::getcwd(dir, sizeof dir)) return std::filesystem::path(usable_pwd(pwd, dir) ? *pwd : std::string(dir));
  // Linux names a folder by at most PATH_MAX bytes: getcwd fails on a deeper one (ERANGE, or
  // ENAMETOOLONG from the system call), though the folder exists. A shorter $PWD through a
  // symlink still reaches it.
  if (errno == ERANGE || errno == ENAMETOOLONG) {
    if (usable_pwd(pwd, ".")) return std::filesystem::path(*pwd);
    return make_error("the current directory's path is longer than PATH_MAX (" + std::to_string(PATH_MAX) +
                          " bytes), so cudaenv cannot name it or any file in it",
                      "cd into a directory with a shorter path, or reach this one through a symlink with a short path");
  }
  if (errno == ENOENT) {
    return make_error("the current directory was removed", "cd into a directory that exists");
  }
  return make_error(std::string("cannot read the current directory: ") + std::strerror(errno),
                    "check its permissions (getcwd needs to search every folder above it), or cd elsewhere");
}

}  // namespace cudaenv
