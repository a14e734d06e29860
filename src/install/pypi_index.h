#pragma once
// NVIDIA's CUDA wheels on a Python package index: which distribution carries each redist
// component, the toolkit labels the `cuda-toolkit` metapackage offers and the component versions
// it pins, which wheel fits a platform, and where a wheel's files go in the flat toolkit layout
// (pure). The planner reads the index through `WheelIndex`, so it is tested without one;
// `PackageIndex` is the one that reads PyPI, or a proxy of it, over the network.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/setting.h"
#include "install/archive.h"
#include "install/catalog.h"
#include "install/downloader.h"
#include "install/plan.h"
#include "torch/index_parser.h"
#include "util/environment.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

// The index `install --source pypi` reads: --index-url, else the one pip would use, so a site's
// proxy (Artifactory, Nexus, devpi) is followed without being told twice: PIP_INDEX_URL, else
// pip's configuration files (read through a FileSystemView, so tested on an in-memory one), else
// PyPI.
inline constexpr const char* kDefaultPackageIndex = "https://pypi.org/simple";
// Where PyPI's pages send downloads.
inline constexpr const char* kDefaultPackageFiles = "https://files.pythonhosted.org";

// pip's files in the order pip loads them, each overriding the ones before (pip 23's
// configuration.py, checked with `pip config debug`): the XDG global files and /etc/pip.conf;
// ~/.pip/pip.conf and $XDG_CONFIG_HOME/pip/pip.conf unless PIP_CONFIG_FILE names a file that
// exists; $VIRTUAL_ENV/pip.conf; $PIP_CONFIG_FILE. None when PIP_CONFIG_FILE is /dev/null.
std::vector<std::filesystem::path> pip_config_files(const EnvMap& env, const FileSystemView& fs);

// What pip would use for one of its options, `name` as its files spell it ("index-url",
// "cert"): the variable PIP_<NAME> (PIP_INDEX_URL: an environment setting), else the last file
// that sets it (a file setting: where is that file).
std::optional<Setting> pip_setting(const EnvMap& env, const FileSystemView& fs, std::string_view name);

// `name` in one file: [install] over [global] (a command's section overrides [global]); pip
// also accepts '_' for '-' (index_url).
std::optional<std::string> pip_config_value(std::string_view text, std::string_view name);

// The redist component a profile names -> its CUDA 13 wheel ("cuda_nvcc" -> "nvidia-cuda-nvcc");
// nullopt for a component NVIDIA publishes no wheel of.
std::optional<std::string> wheel_distribution(std::string_view component);
// The reverse; a distribution the table lacks stands for itself (`--profile full`).
std::string component_of_distribution(std::string_view distribution);

// A PEP 440 final release's numbers ("13.3.3.3.1"); nullopt for pre-, post-, dev- or local versions.
std::optional<std::vector<int>> release_numbers(std::string_view version);

// One `cuda-toolkit` metapackage release: its label is the toolkit's, as NVIDIA's redist names
// it (cuda-toolkit 13.2.2 pins nvidia-cuda-nvcc 13.2.86, as redistrib_13.2.2.json does). A
// four-part 13.4.1.0 is the label 13.4.1.
struct ToolkitRelease {
  std::string label;
  IndexFile metapackage;
};
// The metapackage's final releases of CUDA 11 and later on a project page, newest first.
std::vector<ToolkitRelease> toolkit_releases(const std::vector<IndexFile>& files);

// The metapackage's METADATA: each Requires-Dist distribution (normalised) -> its specifier,
// ("nvidia-cuda-nvcc" -> "==13.2.86.*"), markers and extras dropped.
std::map<std::string, std::string> required_versions(std::string_view metadata);

// Whether a release satisfies a specifier made of ==X, ==X.*, >=, >, <=, <, != clauses.
bool satisfies(const std::vector<int>& release, std::string_view specifier);

// Whether a wheel installs on a Linux platform ("linux-x86_64", "linux-sbsa"): a manylinux or
// linux tag of its machine, or a pure "any" wheel.
bool wheel_fits_platform(const WheelName& wheel, std::string_view platform);

// The wheel of `distribution` that `specifier` picks for `platform`, yanked files skipped: the
// newest match of an == pin, the oldest match of a range (the lower bound is what NVIDIA
// released with the toolkit; a later minor belongs to a later toolkit). An empty specifier picks
// the newest.
std::optional<IndexFile> choose_wheel(const std::vector<IndexFile>& files, std::string_view distribution,
                                      std::string_view specifier, std::string_view platform);

// The final releases of `distribution` a page has for `platform` ("13.2.75", ...), oldest first.
std::vector<std::string> wheel_versions(const std::vector<IndexFile>& files, std::string_view distribution,
                                        std::string_view platform);

// Where a wheel member goes below the toolkit root: CUDA 13 wheels keep their files under
// nvidia/cu13/ (nvidia/cu13/bin/nvcc -> bin/nvcc), NCCL's under nvidia/nccl/{include,lib}. nullopt for what is no toolkit file:
// .dist-info, Python modules, other packages' folders, hidden metadata. A folder that only
// nests a toolkit folder (the 13.2 cccl wheel's nvidia/cu13/cuda_cccl/lib/cmake) is dropped.
std::optional<std::string> wheel_toolkit_path(std::string_view member);

// Reading the index: project pages (file URLs absolute) and what a page leaves out.
class WheelIndex {
 public:
  virtual ~WheelIndex() = default;
  virtual const std::string& url() const = 0;  // the index root, without a trailing '/'
  virtual Result<std::vector<IndexFile>> files(const std::string& project) = 0;
  // The METADATA inside `wheel` (a small metapackage), its sha256 checked.
  virtual Result<std::string> wheel_metadata(const IndexFile& wheel) = 0;
  // The size of a file whose page does not give one (PEP 503 pages never do).
  virtual Result<std::uint64_t> size_of(const IndexFile& wheel) = 0;
};

// One wheel as an install plans it: refused when the index lists it without a sha256; its size
// asked of the index when the page does not say.
Result<Archive> planned_wheel(WheelIndex& index, const IndexFile& wheel, const std::string& component,
                              const std::string& distribution);

struct WheelRequest {
  std::string label;                    // resolved, "13.2.2"
  std::string profile;                  // minimal | torch | full
  std::vector<std::string> components;  // extras, as redist names them
  std::string platform;                 // linux-x86_64 | linux-sbsa
};

// CUDA 12 and 11 wheels carry ptxas but no nvcc: refused, naming the command that works.
Status check_wheel_major(const Version& version, const std::string& index_url);

// The wheels of one toolkit release, one per component, profile first then extras.
Result<InstallPlan> plan_wheels(WheelIndex& index, const ProfileCatalog& profiles, const WheelRequest& request);

// The label a request names on the index: a full x.y.z as it is, "13.2" the newest 13.2.z
// whose wheels all exist for the request.
Result<std::string> resolve_wheel_label(WheelIndex& index, const ProfileCatalog& profiles, const std::string& version,
                                        const WheelRequest& request);

// The index over the network: project pages read once per command, metapackage wheels (a few
// kB) fetched into memory and checked against the index's sha256 before their METADATA is read.
class PackageIndex : public WheelIndex {
 public:
  // `url` the index root (a trailing '/' is dropped).
  PackageIndex(std::string url, const FetchSettings& fetch);

  const std::string& url() const override { return url_; }
  Result<std::vector<IndexFile>> files(const std::string& project) override;
  Result<std::string> wheel_metadata(const IndexFile& wheel) override;
  Result<std::uint64_t> size_of(const IndexFile& wheel) override;
  void set_should_stop(std::function<bool()> should_stop) { options_.should_stop = std::move(should_stop); }

 private:
  std::string url_;
  DownloadOptions options_;
  // Resolving a label plans it once, the install again: each page, metapackage and size is read once.
  std::map<std::string, std::vector<IndexFile>> pages_;
  std::map<std::string, std::string> metadata_;
  std::map<std::string, std::uint64_t> sizes_;
};

// The pypi source's part of an install (the redist source's is plan_redist_files).
PlanFiles plan_wheel_files(PackageIndex& index, const ProfileCatalog& profiles);

}  // namespace cudaenv
