#pragma once
// The toolkits cudaenv knows: entries under each root's versions/, and "system".

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/layout.h"
#include "core/version.h"
#include "util/environment.h"
#include "util/file_system.h"

namespace cudaenv {

enum class ToolkitSource { user_root, shared_root, system };

struct Toolkit {
  std::string name;                // entry name under versions/, or "system"
  std::optional<Version> version;  // parsed from the name when it is a version
  fs::path home;                   // CUDA_HOME: the link target for a registered toolkit
  ToolkitSource source = ToolkitSource::user_root;
  bool registered = false;  // versions/<name> is a symlink made by `cudaenv add`
  bool present = true;      // home/bin exists (a registered target may have gone)

  fs::path bin_dir() const { return home / "bin"; }
};

// Toolkits in all version roots, the user's shadowing the shared one's of the same
// name, sorted oldest first (names that are not versions last, alphabetically).
// Hidden entries (staging folders, ".lock") are skipped.
std::vector<Toolkit> list_toolkits(const FileSystemView& fs, const Layout& layout);

// The toolkits as a request needs them: an exact name opens versions/<name> in each root
// directly, so its cost does not grow with the number of toolkits; only a prefix
// request ("12.1") or a listing reads the folders, and then once. Keep the index no
// longer than the file system view it was given.
class ToolkitIndex {
 public:
  ToolkitIndex(const FileSystemView& fs, Layout layout) : fs_(fs), layout_(std::move(layout)) {}

  // The entry named exactly `name`, as list_toolkits() would give it.
  std::optional<Toolkit> find(const std::string& name) const;
  // The newest toolkit whose version `wanted` is a prefix of (by name on a tie), as
  // list_toolkits() would give it; only the folders' listings are read besides that entry.
  std::optional<Toolkit> newest_match(const Version& wanted) const;
  const std::vector<Toolkit>& all() const;

 private:
  const FileSystemView& fs_;
  Layout layout_;
  mutable std::optional<std::vector<Toolkit>> all_;
};

// The toolkit cudaenv falls back to: the first `nvcc` on PATH outside the shims folder,
// else /usr/local/cuda. Its home is the parent of nvcc's bin folder.
std::optional<Toolkit> find_system_toolkit(const FileSystemView& fs, const EnvMap& env, const fs::path& shims_dir);

// The first executable `program` on PATH, skipping `skip_dir` (the shims folder).
std::optional<fs::path> find_on_path(const FileSystemView& fs, const EnvMap& env, const std::string& program,
                                     const fs::path& skip_dir);

// Names of the toolkits whose bin/ has an executable `program`.
std::vector<std::string> toolkits_with_program(const FileSystemView& fs, const std::vector<Toolkit>& toolkits,
                                               const std::string& program);

const char* source_label(ToolkitSource source);

}  // namespace cudaenv
