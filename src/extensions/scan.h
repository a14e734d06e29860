#pragma once
// The scan: every extension module on the probed interpreter's sys.path that links torch's
// libraries or a CUDA library (or carries device code), read, never imported, and judged against
// a model of torch's process: the libraries torch loads (extensions/loader.h), the symbols they
// define (extensions/symbols.h) and the GPUs' archs (extensions/fatbin.h).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "extensions/extension.h"
#include "util/file_system.h"

namespace cudaenv {

struct ScanRequest {
  std::vector<std::filesystem::path> sys_path;  // as the interpreter has it; '' and zip files are skipped
  // The interpreter's standard library (sysconfig's "stdlib"): it and its lib-dynload are skipped,
  // CPython's own modules being all they hold.
  std::optional<std::filesystem::path> stdlib;
  std::filesystem::path torch_dir;           // the torch package's folder (its lib/ and _C)
  std::optional<int> torch_cuda_major;       // torch.version.cuda's major: where torch preloads NVIDIA's wheels from
  std::vector<std::string> library_path;     // LD_LIBRARY_PATH's entries
  std::filesystem::path machine_root = "/";  // where etc/ld.so.cache and the system folders are
};

// Fills `scan`'s packages, module_count and unreadable; `scan.archs` must be set before, the
// kernels are checked against them.
void scan_extensions(const FileSystemView& fs, const ScanRequest& request, ExtensionScan& scan);

}  // namespace cudaenv
