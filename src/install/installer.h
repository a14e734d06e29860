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
#include "core/settings_table.h"
#include "install/catalog.h"
#include "install/fetch_settings.h"
#include "install/plan.h"
#include "install/progress.h"
#include "install/receipt.h"
#include "util/result.h"

namespace cudaenv {

struct InstallResult {
  bool already_installed = false;
  std::filesystem::path home;
  InstallPlan plan;  // what was installed (no files when already installed)
};

// How the user stops an install (Ctrl-C, SIGTERM), owned by the CLI's edge, which holds the
// signal handlers. `watch` runs once the install holds its label's lock and begins to plan (a
// signal before, while it waits for another install, ends the process as usual); from then on
// `interrupted`, polled by every step, says whether the user stopped it.
struct InterruptWatch {
  std::function<void()> watch;
  std::function<bool()> interrupted;
};

// One release into versions/<label>: prepare (lock, stale work folders, what is installed),
// plan (the source's `plan_files`), stage (download, check, extract, layout, metadata into a
// staging folder) and commit (rename into place, drop downloads, `rehash`). Once interrupted, the
// staging folder is removed, partial downloads are kept, and the error is interrupted_error().
// The downloads keep to `fetch` (its deadlines and CA certificates).
Result<InstallResult> install_release(const Layout& layout, const ProfileCatalog& profiles, const InstallRequest& request,
                                      const PlanFiles& plan_files, const FetchSettings& fetch, ProgressReporter& progress,
                                      const std::function<Status()>& rehash, const InterruptWatch& interrupts);

// The archives an installed toolkit's receipt lists, libraries included; nullopt without a
// readable receipt.
std::optional<std::vector<Archive>> installed_files(const std::filesystem::path& home);

// Takes the label's install lock, renames versions/<label> aside and deletes it.
Status remove_installed(const Layout& layout, const std::string& label);

}  // namespace cudaenv
