#pragma once
// Registering toolkits that live elsewhere (`cudaenv add`): versions/<name> -> PATH.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/layout.h"
#include "core/version.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

// The CUDA version of the toolkit at `home`: version.json, else include/cuda.h,
// else `bin/nvcc --version`.
Result<Version> detect_toolkit_version(const FileSystemView& fs, const std::filesystem::path& home);

struct Registration {
  std::string name;
  std::filesystem::path home;
  bool already = false;  // the same name already pointed there
};

// Refuses a folder without bin/nvcc and a name that is taken by another toolkit.
Result<Registration> register_toolkit(const FileSystemView& fs, const Layout& layout, const std::filesystem::path& home,
                                      const std::optional<std::string>& as_name);

// The cuda-* folders in `dirs` (default /usr/local) that hold bin/nvcc.
std::vector<std::filesystem::path> scan_for_toolkits(const FileSystemView& fs, const std::vector<std::filesystem::path>& dirs);

}  // namespace cudaenv
