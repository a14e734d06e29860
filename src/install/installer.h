#pragma once
// One release into versions/<label>, whichever source plans its files: download and check the
// planned files, extract them into a staging folder beside versions/, write version.json and
// the install receipt, rename the folder into place and rehash. Serialised per label by a lock.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/layout.h"
#include "install/catalog.h"
#include "install/plan.h"
#include "install/progress.h"
#include "util/result.h"

namespace cudaenv {

inline constexpr const char* kInstallReceiptName = "cudaenv-install.json";

struct InstallRequest {
  std::string label;                    // a full release label, already resolved
  std::string profile;                  // minimal | torch | full
  std::vector<std::string> components;  // extras
  std::string platform;
  int jobs = 4;
  bool force = false;           // reinstall even when present
  bool keep_downloads = false;  // leave the downloads in the cache
  // Libraries of the toolkit ("cudnn", "nccl@2.28"): the source's PlanFiles adds their files.
  std::vector<std::string> libraries;
};

struct InstallResult {
  bool already_installed = false;
  std::filesystem::path home;
  InstallPlan plan;  // what was installed (no files when already installed)
};

// A source's part of an install: which files make the request (widened by what an existing
// install has). It runs under the label's install lock; `should_stop` is true once interrupted.
using PlanFiles = std::function<Result<InstallPlan>(const InstallRequest&, const std::function<bool()>& should_stop)>;

// One release into versions/<label>: prepare (lock, stale work folders, what is installed),
// plan (the source's `plan_files`), stage (download, check, extract, layout, metadata into a
// staging folder) and commit (rename into place, drop downloads, `rehash`).
Result<InstallResult> install_release(const Layout& layout, const ProfileCatalog& profiles, const InstallRequest& request,
                                      const PlanFiles& plan_files, ProgressReporter& progress,
                                      const std::function<Status()>& rehash);

// One file an installed toolkit's receipt lists, libraries included.
struct ReceiptFile {
  std::string name;
  std::string version;
  std::string sha256;
};
// Its files; nullopt without a readable receipt.
std::optional<std::vector<ReceiptFile>> installed_files(const std::filesystem::path& home);

// Takes the label's install lock, renames versions/<label> aside and deletes it.
Status remove_installed(const Layout& layout, const std::string& label);

}  // namespace cudaenv
