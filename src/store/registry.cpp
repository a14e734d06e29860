#include "store/registry.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/cuda_toml.h"
#include "core/version_detect.h"
#include "util/file_system.h"
#include "util/process.h"

namespace cudaenv {

namespace fs = std::filesystem;

Result<Version> detect_toolkit_version(const FileSystemView& fs, const fs::path& home) {
  if (auto version = shipped_toolkit_version(fs, home)) return *version;
  auto output = run_capture({(home / "bin/nvcc").string(), "--version"}, std::chrono::seconds(20));
  if (output && output->exit_code == 0) {
    if (auto version = version_from_nvcc_banner(output->out)) return *version;
  }
  return make_error("cannot tell the CUDA version of " + home.string() +
                        " (no version.json, no CUDA_VERSION in include/cuda.h, no release in `nvcc --version`)",
                    "name it yourself: cudaenv add " + home.string() + " --as NAME");
}

Result<Registration> register_toolkit(const FileSystemView& disk, const Layout& layout, const fs::path& home_arg,
                                      const std::optional<std::string>& as_name) {
  std::error_code ec;
  fs::path home = fs::absolute(home_arg, ec).lexically_normal();
  if (ec) return make_error("cannot resolve " + home_arg.string() + ": " + ec.message(), "give the toolkit's absolute path");
  if (home.has_relative_path() && !home.has_filename()) home = home.parent_path();
  // PATH, LD_LIBRARY_PATH and CPATH split at ':'; a newline ends a modulefile line.
  if (home.string().find_first_of(":\n") != std::string::npos) {
    return make_error("cannot register " + home.string() +
                          ": a toolkit path with ':' or a newline would split PATH and "
                          "LD_LIBRARY_PATH",
                      "move or link the toolkit to a plainer path, e.g. ln -s '" + home.string() +
                          "' /opt/cuda-x && "
                          "cudaenv add /opt/cuda-x");
  }
  if (!disk.is_executable(home / "bin/nvcc")) {
    return make_error(home.string() + " is not a CUDA toolkit: it has no executable bin/nvcc",
                      "point at the folder that holds bin/nvcc, e.g. cudaenv add /usr/local/cuda-12.4");
  }
  Registration registration{as_name.value_or(""), home, false};
  if (!as_name) {
    CUDAENV_TRY_ASSIGN(auto version, detect_toolkit_version(disk, home));
    registration.name = version.str();
  }
  if (!is_valid_version_request(registration.name) || registration.name == "system") {
    return make_error("'" + registration.name + "' cannot name a toolkit",
                      "use letters, digits, '.', '_', '+' or '-', and not 'system'");
  }
  fs::path entry = layout.versions_dir() / registration.name;
  if (auto target = disk.read_link(entry)) {
    if (fs::equivalent(*target, home, ec)) {
      registration.already = true;
      return registration;
    }
  }
  if (disk.kind(entry) != EntryKind::missing || disk.read_link(entry)) {
    std::string what = disk.read_link(entry) ? "registered to " + disk.read_link(entry)->string() : "installed";
    return make_error("CUDA " + registration.name + " is already " + what,
                      "pick another name with --as NAME, or remove it first: cudaenv uninstall " + registration.name);
  }
  fs::create_directories(layout.versions_dir(), ec);
  fs::path temporary = temporary_path_beside(entry);
  if (::symlink(home.c_str(), temporary.c_str()) != 0 || ::rename(temporary.c_str(), entry.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    return make_error("cannot register " + entry.string() + ": " + reason,
                      "check that " + layout.versions_dir().string() + " is writable");
  }
  return registration;
}

std::vector<fs::path> scan_for_toolkits(const FileSystemView& disk, const std::vector<fs::path>& dirs) {
  std::vector<fs::path> found;
  for (const fs::path& dir : dirs) {
    for (const std::string& name : disk.list_dir(dir)) {
      if (name.rfind("cuda-", 0) == 0 && disk.is_executable(dir / name / "bin/nvcc")) found.push_back(dir / name);
    }
  }
  return found;
}

}  // namespace cudaenv
