#pragma once
// One release from manifest to versions/<label>: fetch and check the manifest, download the
// planned archives, extract them into a staging folder beside versions/, write version.json and
// the install receipt, rename the folder into place and rehash. Serialised per label by a lock.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/layout.h"
#include "install/catalog.h"
#include "install/library.h"
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
  std::string base_url;  // ends in '/'; http(s):// or file://
  int jobs = 4;
  bool force = false;           // reinstall even when present
  bool keep_downloads = false;  // leave the archives in the cache
  bool skip_manifest_pin = false;
  std::vector<PlannedLibrary> libraries;  // resolved already, installed into the same tree
  // Runs on the plan before anything is downloaded (`install --locked` compares it with the lock).
  std::function<Status(const std::vector<PlannedArchive>& plan, const std::string& manifest_sha256)> check_plan;
};

struct InstallResult {
  bool already_installed = false;
  std::filesystem::path home;
  std::vector<PlannedArchive> archives;  // what was installed (empty when already installed)
  std::vector<PlannedLibrary> libraries;
};

// One archive an installed toolkit's receipt lists.
struct ReceiptArchive {
  std::string name;
  std::string version;
  std::string sha256;
  bool library = false;
};

Result<InstallResult> install_release(const Layout& layout, const ReleaseCatalog& releases,
                                      const ProfileCatalog& profiles, const InstallRequest& request,
                                      ProgressReporter& progress);

// The components an installed toolkit's receipt lists (empty without a receipt).
std::vector<std::string> installed_components(const std::filesystem::path& home);
// Its components and libraries; nullopt without a readable receipt.
std::optional<std::vector<ReceiptArchive>> installed_archives(const std::filesystem::path& home);

// Takes the label's install lock, renames versions/<label> aside and deletes it.
Status remove_installed(const Layout& layout, const std::string& label);

}  // namespace cudaenv
