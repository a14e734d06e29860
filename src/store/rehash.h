#pragma once
// shims/: one entry per program in any toolkit's bin/, each a hard link to (or, across
// file systems, a copy of) cudaenv-shim.

#include <filesystem>
#include <string>
#include <vector>

#include "core/layout.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

struct RehashReport {
  std::vector<std::string> shims;  // every shim now present
  std::vector<std::string> added;
  std::vector<std::string> removed;
};

// Names of the executables in the bin/ of every known toolkit that may get a shim: CUDA's
// own programs (nvcc, ptxas, cuda-gdb, nsight-*, ...) and any other name that no system
// program folder (/usr/bin, /bin, /usr/local/bin, the sbin ones) has, so a toolkit never
// shadows the system's ls, git or python3.
std::vector<std::string> shim_names(const FileSystemView& fs, const Layout& layout);

// Rebuilds shims/ under a lock, so concurrent runs serialise instead of colliding;
// each shim is replaced by rename, so a running shim never sees a missing file. The shims
// find `cli` (what resolves for them) as shims/.cudaenv.
Result<RehashReport> rehash(const FileSystemView& fs, const Layout& layout, const std::filesystem::path& shim_binary,
                            const std::filesystem::path& cli);

// rehash() with the installed shim binary: what add/install/uninstall run afterwards.
Result<RehashReport> rehash_after_change(const FileSystemView& fs, const Layout& layout);

// An upgrade (pip, uv, pipx, the installer) puts a new file where the installed shim was, and
// the shims stay links to the old one. `cudaenv shim` calls this, where every shim lands after
// an upgrade because each record watches the installed shim (cli/cmd_shim.cpp): when `shim` is
// neither `installed_shim` nor a copy of it, rehashes, if its folder is the user's own shims/.
Status follow_installed_shim(const FileSystemView& fs, const Layout& layout, const std::filesystem::path& shim,
                             const std::filesystem::path& installed_shim);

}  // namespace cudaenv
