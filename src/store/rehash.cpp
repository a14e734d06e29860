#include "store/rehash.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "core/data_dir.h"
#include "core/toolkits.h"
#include "util/file_system.h"

namespace cudaenv {

namespace {

// A hard link where it can be, else (another file system) a copy written like any file.
Status place_shim(const FileSystemView& disk, const fs::path& shim_binary, const fs::path& shim) {
  fs::path temporary = temporary_path_beside(shim);
  if (::link(shim_binary.c_str(), temporary.c_str()) != 0) {
    if (errno != EXDEV && errno != EPERM) {
      return make_error("cannot create shim " + shim.string() + ": " + std::strerror(errno),
                        "check that " + shim.parent_path().string() + " is writable");
    }
    CUDAENV_TRY_ASSIGN(auto program, disk.read_file(shim_binary, kLargeFileLimit));
    return write_file_atomically(shim, program, 0755);
  }
  if (::rename(temporary.c_str(), shim.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    return make_error("cannot create shim " + shim.string() + ": " + reason);
  }
  return ok_status();
}

// The shims hand what they have no record of to the CLI, `cudaenv shim`; they find it in their
// own folder as .cudaenv (a copy of the shim cannot know where it came from).
Status link_cli(const fs::path& cli, const fs::path& shims_dir) {
  fs::path target = fs::absolute(cli);
  fs::path link = shims_dir / ".cudaenv";
  fs::path temporary = temporary_path_beside(link);
  if (::symlink(target.c_str(), temporary.c_str()) != 0 || ::rename(temporary.c_str(), link.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    ::unlink(temporary.c_str());
    return make_error("cannot link " + link.string() + " to " + target.string() + ": " + reason,
                      "check that " + shims_dir.string() + " is writable");
  }
  return ok_status();
}

// The programs in the bin/ of NVIDIA's CUDA toolkits, 10.x to 13.x (their redist archives
// and runfiles), besides cuda-* and nsight*.
bool is_cuda_program(const std::string& name) {
  static const std::set<std::string> known{"nvcc",
                                           "ptxas",
                                           "nvlink",
                                           "fatbinary",
                                           "cudafe++",
                                           "cuobjdump",
                                           "nvdisasm",
                                           "nvprune",
                                           "cu++filt",
                                           "bin2c",
                                           "__nvcc_device_query",
                                           "compute-sanitizer",
                                           "nvprof",
                                           "nvvp",
                                           "computeprof",
                                           "nsys",
                                           "nsys-ui",
                                           "ncu",
                                           "ncu-ui",
                                           "nv-nsight-cu",
                                           "nv-nsight-cu-cli"};
  return known.count(name) > 0 || name.rfind("cuda-", 0) == 0 || name.rfind("nsight", 0) == 0;
}

// Where the system keeps its own programs: a toolkit folder that also holds ls, git or
// python3 (/usr, on distributions that package nvcc) must not shadow them with shims.
bool is_system_program(const FileSystemView& fs, const std::string& name) {
  for (const char* dir : {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}) {
    if (fs.is_executable(fs::path(dir) / name)) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> shim_names(const FileSystemView& fs, const Layout& layout) {
  std::set<std::string> names;
  for (const Toolkit& toolkit : list_toolkits(fs, layout)) {
    for (const std::string& name : fs.list_dir(toolkit.bin_dir())) {
      if (name[0] == '.' || !fs.is_executable(toolkit.bin_dir() / name)) continue;
      if (is_cuda_program(name) || !is_system_program(fs, name)) names.insert(name);
    }
  }
  return {names.begin(), names.end()};
}

Result<RehashReport> rehash(const FileSystemView& disk, const Layout& layout, const fs::path& shim_binary, const fs::path& cli) {
  auto lock = FileLock::acquire(layout.locks_dir() / "rehash");
  if (!lock) return lock.take_error();
  std::error_code ec;
  fs::create_directories(layout.shims_dir(), ec);
  if (ec) {
    return make_error("cannot create " + layout.shims_dir().string() + ": " + ec.message(),
                      "check that " + layout.user_root.string() + " is writable");
  }
  RehashReport report;
  report.shims = shim_names(disk, layout);
  for (const std::string& name : report.shims) {
    fs::path shim = layout.shims_dir() / name;
    if (same_file(shim, shim_binary)) continue;
    if (disk.kind(shim) == EntryKind::missing) report.added.push_back(name);
    CUDAENV_TRY(place_shim(disk, shim_binary, shim));
  }
  CUDAENV_TRY(link_cli(cli, layout.shims_dir()));
  for (const std::string& name : disk.list_dir(layout.shims_dir())) {
    if (name[0] == '.' || std::binary_search(report.shims.begin(), report.shims.end(), name)) continue;
    fs::remove(layout.shims_dir() / name, ec);
    report.removed.push_back(name);
  }
  return report;
}

Result<RehashReport> rehash_after_change(const FileSystemView& fs, const Layout& layout) {
  CUDAENV_TRY_ASSIGN(auto shim_binary, locate_program("cudaenv-shim"));
  CUDAENV_TRY_ASSIGN(auto cli, user_program());
  return rehash(fs, layout, shim_binary, cli);
}

Status follow_installed_shim(const FileSystemView& fs, const Layout& layout, const fs::path& shim,
                             const fs::path& installed_shim) {
  if (is_same_program(shim, installed_shim)) return ok_status();
  // Root running another user's shim must not put root's files in that user's folder.
  struct stat folder {};
  if (!same_file(shim.parent_path(), layout.shims_dir()) || ::stat(layout.shims_dir().c_str(), &folder) != 0 ||
      folder.st_uid != ::geteuid()) {
    return ok_status();
  }
  CUDAENV_TRY_ASSIGN(auto cli, user_program());
  CUDAENV_TRY(rehash(fs, layout, installed_shim, cli));
  return ok_status();
}

}  // namespace cudaenv
