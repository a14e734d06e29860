#pragma once
// Which cuda.toml files may set [env] (as direnv allow; docs/sources.md), and which cuda.lock files
// may name the servers an install fetches from (docs/locks.md). A trust record is the file
// CUDAENV_ROOT/trust/<sha256(real path + "\n" + contents)>, holding the path: editing
// or moving the file changes the hash, so it is untrusted again until re-trusted.

#include <filesystem>
#include <string>
#include <string_view>

#include "core/cuda_toml.h"
#include "util/result.h"

namespace cudaenv {

namespace fs = std::filesystem;

// Lowercase hex sha256 of `real_path` + "\n" + `contents`.
std::string trust_key(const fs::path& real_path, std::string_view contents);

class TrustStore {
 public:
  explicit TrustStore(fs::path dir) : dir_(std::move(dir)) {}

  // The project as parsed has a trust record: the key is taken from the bytes that were
  // parsed, so a file swapped after parsing is never applied as trusted. The path is
  // resolved through symlinks, so a project reached through a linked folder is the same.
  bool is_trusted(const CudaToml& project) const;
  // The same for any file, by the bytes that were read from `file`.
  bool is_trusted(const fs::path& file, std::string_view contents) const;
  // Returns the real path recorded.
  Result<fs::path> trust(const fs::path& file) const;
  // Removes every record for the file, its current contents' and older ones alike;
  // returns how many there were.
  Result<int> untrust(const fs::path& file) const;

 private:
  fs::path dir_;
};

}  // namespace cudaenv
