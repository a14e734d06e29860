#include "install/pypi_index.h"

#include <algorithm>
#include <cctype>

#include "install/extractor.h"
#include "install/plan.h"
#include "install/redist_manifest.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// A metapackage wheel is a few kB; its METADATA lists the component pins.
constexpr std::uint64_t kMaxMetapackageBytes = 1 << 20;

// Redist component -> wheel, from the Requires-Dist of NVIDIA's cuda-toolkit 13.2.2 metapackage
// on PyPI (its extras name the same parts as redistrib_13.2.2.json's components).
constexpr std::pair<std::string_view, std::string_view> kWheels[] = {
    {"cuda_nvcc", "nvidia-cuda-nvcc"},
    {"cuda_crt", "nvidia-cuda-crt"},
    {"libnvvm", "nvidia-nvvm"},
    {"cuda_cudart", "nvidia-cuda-runtime"},
    {"cuda_cccl", "nvidia-cuda-cccl"},
    {"cccl", "nvidia-cuda-cccl"},
    {"libcublas", "nvidia-cublas"},
    {"libcusparse", "nvidia-cusparse"},
    {"libcusolver", "nvidia-cusolver"},
    {"libcufft", "nvidia-cufft"},
    {"libcurand", "nvidia-curand"},
    {"libnvjitlink", "nvidia-nvjitlink"},
    {"cuda_nvrtc", "nvidia-cuda-nvrtc"},
    {"cuda_nvtx", "nvidia-nvtx"},
    {"cuda_cupti", "nvidia-cuda-cupti"},
    {"cuda_profiler_api", "nvidia-cuda-profiler-api"},
    {"cuda_cuobjdump", "nvidia-cuda-cuobjdump"},
    {"cuda_nvdisasm", "nvidia-cuda-nvdisasm"},
    {"cuda_cuxxfilt", "nvidia-cuda-cuxxfilt"},
    {"cuda_sanitizer_api", "nvidia-cuda-sanitizer-api"},
    {"cuda_culibos", "nvidia-cuda-culibos"},
    {"cuda_opencl", "nvidia-cuda-opencl"},
    {"cuda_nvml_dev", "nvidia-nvml-dev"},
    {"libnpp", "nvidia-npp"},
    {"libnvjpeg", "nvidia-nvjpeg"},
    {"libcufile", "nvidia-cufile"},
    {"libnvfatbin", "nvidia-nvfatbin"},
    {"libnvptxcompiler", "nvidia-nvptxcompiler"},
};

constexpr const char* kMetapackage = "cuda-toolkit";

// Folders of a toolkit root, as the redist archives and the wheels' nvidia/cu13/ have them.
constexpr std::string_view kToolkitFolders[] = {"bin", "include",           "lib", "lib64", "nvvm", "share", "extras", "targets",
                                                "res", "compute-sanitizer", "gds", "tools"};

bool is_toolkit_folder(std::string_view name) {
  return std::find(std::begin(kToolkitFolders), std::end(kToolkitFolders), name) != std::end(kToolkitFolders);
}

int compare_releases(const std::vector<int>& a, const std::vector<int>& b) {
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    int x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

bool has_prefix(const std::vector<int>& release, const std::vector<int>& prefix) {
  if (prefix.size() > release.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), release.begin());
}

bool satisfies_clause(const std::vector<int>& release, std::string_view clause) {
  clause = trim(clause);
  size_t op_end = 0;
  while (op_end < clause.size() && std::string_view("=<>!~").find(clause[op_end]) != std::string_view::npos) ++op_end;
  std::string_view op = clause.substr(0, op_end);
  std::string_view value = trim(clause.substr(op_end));
  bool wildcard = value.ends_with(".*");
  if (wildcard) value.remove_suffix(2);
  auto bound = release_numbers(value);
  if (!bound) return false;
  int order = compare_releases(release, *bound);
  if (op == "==") return wildcard ? has_prefix(release, *bound) : order == 0;
  if (op == "!=") return wildcard ? !has_prefix(release, *bound) : order != 0;
  if (wildcard) return false;
  if (op == ">=") return order >= 0;
  if (op == ">") return order > 0;
  if (op == "<=") return order <= 0;
  if (op == "<") return order < 0;
  if (op == "~=" && bound->size() >= 2) {
    return order >= 0 && has_prefix(release, std::vector<int>(bound->begin(), bound->end() - 1));
  }
  return false;
}

std::string machine_of(std::string_view platform) {
  if (platform == "linux-x86_64") return "x86_64";
  if (platform == "linux-sbsa" || platform == "linux-aarch64") return "aarch64";
  return {};
}

struct Candidate {
  std::vector<int> release;
  IndexFile file;
};

std::vector<Candidate> candidates(const std::vector<IndexFile>& files, std::string_view distribution, std::string_view platform) {
  std::string wanted = normalize_project_name(distribution);
  std::vector<Candidate> out;
  for (const IndexFile& file : files) {
    auto wheel = parse_wheel_name(file.filename);
    if (!wheel || file.yanked || normalize_project_name(wheel->package) != wanted) continue;
    if (!wheel->local.empty() || !wheel_fits_platform(*wheel, platform)) continue;
    if (auto release = release_numbers(wheel->version)) out.push_back(Candidate{*release, file});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Candidate& a, const Candidate& b) { return compare_releases(a.release, b.release) < 0; });
  return out;
}

std::string release_text(const std::vector<int>& release) {
  std::vector<std::string> parts;
  for (int part : release) parts.push_back(std::to_string(part));
  return join(parts, ".");
}

std::string project_url(const WheelIndex& index, std::string_view project) {
  return index.url() + "/" + normalize_project_name(project) + "/";
}

// What the index has of a distribution for the platform, for an error's hint.
std::string offered_versions(WheelIndex& index, std::string_view distribution, std::string_view platform) {
  auto files = index.files(std::string(distribution));
  if (!files) return "its page cannot be read: " + files.error().message;
  std::vector<std::string> versions = wheel_versions(*files, distribution, platform);
  if (versions.empty()) return "it has no " + std::string(platform) + " wheel of " + std::string(distribution);
  return "it has " + std::string(distribution) + " " + join(versions, ", ") + " for " + std::string(platform);
}

// The profile's entries then the extras, as wheel projects, each once, in order.
Result<std::vector<std::pair<std::string, std::string>>> wanted_wheels(const ProfileCatalog& profiles,
                                                                       const WheelRequest& request,
                                                                       const std::map<std::string, std::string>& pins) {
  std::vector<std::string> entries;
  int major = parse_version(request.label)->major();
  if (request.profile == "full") {
    for (const auto& [distribution, spec] : pins) entries.push_back(component_of_distribution(distribution));
  } else {
    entries = profiles.by_major.at(major).at(request.profile);
  }
  entries.insert(entries.end(), request.components.begin(), request.components.end());
  std::vector<std::pair<std::string, std::string>> out;  // component -> distribution
  for (const std::string& entry : entries) {
    std::optional<std::string> distribution;
    std::string component = entry;
    for (const std::string& key : profiles.alternatives(entry)) {
      if ((distribution = wheel_distribution(key))) {
        component = key;
        break;
      }
    }
    if (!distribution && pins.count(normalize_project_name(entry))) distribution = normalize_project_name(entry);
    if (!distribution) {
      std::vector<std::string> known;
      for (const auto& [name, wheel] : kWheels) known.emplace_back(name);
      std::string hint = "components with a wheel: " + join(known, ", ");
      if (auto guess = closest_word(entry, known)) hint = "did you mean " + *guess + "? " + hint;
      return make_error("NVIDIA publishes no wheel of the CUDA component " + entry,
                        hint + "; or install from the redist archives (--source redist)");
    }
    bool seen = std::any_of(out.begin(), out.end(), [&](const auto& item) { return item.second == *distribution; });
    if (!seen) out.emplace_back(component, *distribution);
  }
  return out;
}

}  // namespace

std::vector<std::filesystem::path> pip_config_files(const EnvMap& env, const FileSystemView& disk) {
  std::optional<std::string> explicit_file = env_get(env, "PIP_CONFIG_FILE");
  if (explicit_file == "/dev/null") return {};
  std::vector<fs::path> files;
  std::string xdg_dirs = env_get(env, "XDG_CONFIG_DIRS").value_or("/etc/xdg");
  for (const std::string& dir : split(xdg_dirs, ':')) {
    if (!dir.empty()) files.push_back(fs::path(dir) / "pip" / "pip.conf");
  }
  files.emplace_back("/etc/pip.conf");
  bool explicit_exists = explicit_file && disk.kind(*explicit_file) != EntryKind::missing;
  if (auto home = env_get(env, "HOME"); home && !explicit_exists) {
    files.push_back(fs::path(*home) / ".pip" / "pip.conf");
    files.push_back(fs::path(env_get(env, "XDG_CONFIG_HOME").value_or(*home + "/.config")) / "pip" / "pip.conf");
  }
  if (auto venv = env_get(env, "VIRTUAL_ENV")) files.push_back(fs::path(*venv) / "pip.conf");
  if (explicit_file) files.emplace_back(*explicit_file);
  return files;
}

std::optional<Setting> pip_setting(const EnvMap& env, const FileSystemView& fs, std::string_view name) {
  std::string variable = "PIP_";
  for (char c : name) variable += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (auto value = env_get(env, variable)) return Setting{*value, OriginKind::environment, variable};
  std::optional<Setting> found;
  for (const std::filesystem::path& file : pip_config_files(env, fs)) {
    auto text = fs.read_file(file);
    if (!text) continue;  // pip skips files it cannot read
    if (auto value = pip_config_value(*text, name)) found = Setting{*value, OriginKind::global_file, file.string()};
  }
  return found;
}

std::optional<std::string> pip_config_value(std::string_view text, std::string_view name) {
  std::optional<std::string> global, install;
  std::string section;
  for (std::string_view line : split(text, '\n')) {
    line = trim(line);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = ascii_lower(trim(line.substr(1, line.size() - 2)));
      continue;
    }
    size_t separator = line.find_first_of("=:");
    if (separator == std::string_view::npos) continue;
    std::string key = ascii_lower(trim(line.substr(0, separator)));
    std::replace(key.begin(), key.end(), '_', '-');
    std::string value(trim(line.substr(separator + 1)));
    if (key != name || value.empty()) continue;
    if (section == "global") global = value;
    if (section == "install") install = value;
  }
  return install ? install : global;
}

std::optional<std::string> wheel_distribution(std::string_view component) {
  for (const auto& [name, wheel] : kWheels) {
    if (name == component) return std::string(wheel);
  }
  return std::nullopt;
}

std::string component_of_distribution(std::string_view distribution) {
  std::string wanted = normalize_project_name(distribution);
  for (const auto& [name, wheel] : kWheels) {
    if (wheel == wanted && name != "cccl") return std::string(name);
  }
  return wanted;
}

std::optional<std::vector<int>> release_numbers(std::string_view version) {
  std::vector<int> out;
  for (const std::string& part : split(version, '.')) {
    if (part.empty() || part.size() > 9 || !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    out.push_back(std::stoi(part));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::vector<ToolkitRelease> toolkit_releases(const std::vector<IndexFile>& files) {
  std::vector<std::pair<std::vector<int>, ToolkitRelease>> found;
  for (const IndexFile& file : files) {
    auto wheel = parse_wheel_name(file.filename);
    if (!wheel || file.yanked || normalize_project_name(wheel->package) != kMetapackage || !wheel->local.empty()) continue;
    auto release = release_numbers(wheel->version);
    if (!release || release->size() < 3 || (*release)[0] < 11) continue;
    if (release->size() > 3 && std::any_of(release->begin() + 3, release->end(), [](int part) { return part != 0; })) continue;
    release->resize(3);
    bool seen = std::any_of(found.begin(), found.end(), [&](const auto& item) { return item.first == *release; });
    if (!seen) found.emplace_back(*release, ToolkitRelease{release_text(*release), file});
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return compare_releases(a.first, b.first) > 0; });
  std::vector<ToolkitRelease> out;
  for (auto& item : found) out.push_back(std::move(item.second));
  return out;
}

std::map<std::string, std::string> required_versions(std::string_view metadata) {
  std::map<std::string, std::string> pins;
  for (std::string_view line : split(metadata, '\n')) {
    line = trim(line);
    if (line.empty()) break;  // the headers end at the first blank line
    if (ascii_lower(line.substr(0, 14)) != "requires-dist:") continue;
    std::string_view requirement = trim(line.substr(14));
    requirement = trim(requirement.substr(0, requirement.find(';')));
    size_t name_end = 0;
    while (name_end < requirement.size() &&
           (std::isalnum(static_cast<unsigned char>(requirement[name_end])) || requirement[name_end] == '-' ||
            requirement[name_end] == '_' || requirement[name_end] == '.')) {
      ++name_end;
    }
    if (name_end == 0) continue;
    std::string spec;
    for (char c : requirement.substr(name_end)) {
      if (c != ' ' && c != '(' && c != ')') spec += c;
    }
    if (spec.empty() || spec.front() == '[') continue;  // unpinned, or another package's extras
    pins.emplace(normalize_project_name(requirement.substr(0, name_end)), spec);
  }
  return pins;
}

bool satisfies(const std::vector<int>& release, std::string_view specifier) {
  std::vector<std::string> clauses = split(specifier, ',');
  if (clauses.empty()) return false;
  return std::all_of(clauses.begin(), clauses.end(),
                     [&](const std::string& clause) { return satisfies_clause(release, clause); });
}

bool wheel_fits_platform(const WheelName& wheel, std::string_view platform) {
  std::string machine = machine_of(platform);
  if (machine.empty()) return false;
  for (const std::string& tag : split(wheel.platform, '.')) {
    if (tag == "any") return true;
    bool linux_tag = starts_with(tag, "manylinux") || starts_with(tag, "linux_");
    if (linux_tag && tag.ends_with("_" + machine)) return true;
  }
  return false;
}

std::vector<std::string> wheel_versions(const std::vector<IndexFile>& files, std::string_view distribution,
                                        std::string_view platform) {
  std::vector<std::string> versions;
  for (const Candidate& candidate : candidates(files, distribution, platform)) {
    std::string text = release_text(candidate.release);
    if (std::find(versions.begin(), versions.end(), text) == versions.end()) versions.push_back(text);
  }
  return versions;
}

std::optional<IndexFile> choose_wheel(const std::vector<IndexFile>& files, std::string_view distribution,
                                      std::string_view specifier, std::string_view platform) {
  std::vector<Candidate> found = candidates(files, distribution, platform);
  bool pinned = specifier.empty() || specifier.find("==") != std::string_view::npos;
  std::optional<IndexFile> chosen;
  for (const Candidate& candidate : found) {
    if (!specifier.empty() && !satisfies(candidate.release, specifier)) continue;
    chosen = candidate.file;
    if (!pinned) break;
  }
  return chosen;
}

std::optional<std::string> wheel_toolkit_path(std::string_view member) {
  std::vector<std::string> parts;
  for (std::string& part : split(member, '/')) {
    if (!part.empty() && part != ".") parts.push_back(std::move(part));
  }
  if (parts.size() < 3 || parts[0] != "nvidia") return std::nullopt;
  // NCCL's wheels (nvidia-nccl-cu12, -cu13) keep their own folder: only its headers and libraries.
  bool nccl = parts[1] == "nccl" && parts.size() >= 4 && (parts[2] == "include" || parts[2] == "lib");
  if (parts[1] != "cu13" && !nccl) return std::nullopt;
  parts.erase(parts.begin(), parts.begin() + 2);
  for (const std::string& part : parts) {
    if (part.front() == '.' || part == "__pycache__") return std::nullopt;
  }
  const std::string& name = parts.back();
  if (name.ends_with(".py") || name.ends_with(".pyc") || name.ends_with(".pyi")) return std::nullopt;
  if (!is_toolkit_folder(parts.front()) && parts.size() > 1 && is_toolkit_folder(parts[1])) parts.erase(parts.begin());
  return join(parts, "/");
}

Status check_wheel_major(const Version& version, const std::string& index_url) {
  if (version.major() >= 13) return ok_status();
  std::string major = std::to_string(version.major());
  return make_error("CUDA " + version.str() + " cannot be installed from " + index_url + ": NVIDIA's CUDA " + major +
                        " wheels (nvidia-cuda-nvcc-cu" + major + ") carry ptxas but no nvcc",
                    "install it from NVIDIA's redist archives: `cudaenv install " + version.str() +
                        " --source redist`, or from a mirror of them: `cudaenv install " + version.str() +
                        " --source redist --mirror URL`");
}

Result<Archive> planned_wheel(WheelIndex& index, const IndexFile& wheel, const std::string& component,
                              const std::string& distribution) {
  if (wheel.sha256.empty()) {
    return make_error(project_url(index, distribution) + " lists " + wheel.filename + " without a sha256",
                      "cudaenv installs only wheels it can check: use an index that publishes hashes (PEP 503 "
                      "#sha256= fragments or PEP 691 `hashes`)");
  }
  auto name = parse_wheel_name(wheel.filename);
  if (!name)
    return make_error(project_url(index, distribution) + " lists '" + terminal_safe(wheel.filename) + "', no wheel name");
  std::uint64_t size = wheel.size;
  if (size == 0) {
    CUDAENV_TRY_ASSIGN(auto probed, index.size_of(wheel));
    size = probed;
  }
  return Archive{.name = component,
                 .version = name->version,
                 .url = wheel.url,
                 .sha256 = wheel.sha256,
                 .size = size,
                 .distribution = distribution};
}

Result<InstallPlan> plan_wheels(WheelIndex& index, const ProfileCatalog& profiles, const WheelRequest& request) {
  auto version = parse_version(request.label);
  if (!version) return make_error("'" + request.label + "' is not a CUDA release label", "e.g. 13.2.2");
  CUDAENV_TRY(check_wheel_major(*version, index.url()));
  CUDAENV_TRY(check_profile(profiles, request.label, request.profile));
  CUDAENV_TRY_ASSIGN(auto metapackage_files, index.files(kMetapackage));
  std::vector<ToolkitRelease> releases = toolkit_releases(metapackage_files);
  auto release =
      std::find_if(releases.begin(), releases.end(), [&](const ToolkitRelease& r) { return r.label == request.label; });
  if (release == releases.end()) {
    std::vector<std::string> labels;
    for (const ToolkitRelease& r : releases) labels.push_back(r.label);
    return make_error(project_url(index, kMetapackage) + " has no cuda-toolkit " + request.label,
                      labels.empty() ? "that index offers no CUDA toolkit wheels; check --index-url"
                                     : "it has: " + join(labels, ", ") + " (`cudaenv list-remote --source pypi`)");
  }
  CUDAENV_TRY_ASSIGN(auto metadata, index.wheel_metadata(release->metapackage));
  std::map<std::string, std::string> pins = required_versions(metadata);
  CUDAENV_TRY_ASSIGN(auto wanted, wanted_wheels(profiles, request, pins));
  InstallPlan plan{.label = request.label,
                   .source = InstallSource::pypi,
                   .origin = index.url(),
                   .pinned_by_url = release->metapackage.url,
                   .pinned_by_sha256 = release->metapackage.sha256};
  for (const auto& [component, distribution] : wanted) {
    auto pin = pins.find(distribution);
    if (pin == pins.end()) {
      return make_error(
          "cuda-toolkit " + request.label + " on " + index.url() + " pins no " + distribution + " (component " + component + ")",
          "that release has no such wheel: choose another release (`cudaenv list-remote --source pypi`) "
          "or install from the redist archives (--source redist)");
    }
    CUDAENV_TRY_ASSIGN(auto files, index.files(distribution));
    auto wheel = choose_wheel(files, distribution, pin->second, request.platform);
    if (!wheel) {
      return make_error(project_url(index, distribution) + " has no " + request.platform + " wheel of " + distribution +
                            pin->second + ", which CUDA " + request.label + "'s component " + component + " needs",
                        offered_versions(index, distribution, request.platform));
    }
    CUDAENV_TRY_ASSIGN(auto file, planned_wheel(index, *wheel, component, distribution));
    plan.files.push_back(std::move(file));
  }
  return plan;
}

Result<std::string> resolve_wheel_label(WheelIndex& index, const ProfileCatalog& profiles, const std::string& version,
                                        const WheelRequest& request) {
  auto wanted = parse_version(version);
  if (!wanted)
    return make_error("'" + version + "' is not a CUDA version", "e.g. cudaenv install 13.2 --source pypi", ErrorKind::usage);
  CUDAENV_TRY(check_wheel_major(*wanted, index.url()));
  if (wanted->parts.size() >= 3) return wanted->str();
  CUDAENV_TRY_ASSIGN(auto files, index.files(kMetapackage));
  std::optional<Error> newest_failure;
  std::vector<std::string> labels;
  for (const ToolkitRelease& release : toolkit_releases(files)) {
    labels.push_back(release.label);
    if (!version_matches(*wanted, *parse_version(release.label))) continue;
    WheelRequest attempt = request;
    attempt.label = release.label;
    auto plan = plan_wheels(index, profiles, attempt);
    if (plan) return release.label;
    if (!newest_failure) newest_failure = plan.take_error();
  }
  if (newest_failure) {
    newest_failure->message =
        "no CUDA " + version + " release on " + index.url() + " has all its wheels: " + newest_failure->message;
    return *newest_failure;
  }
  return make_error("no CUDA " + version + " on " + project_url(index, kMetapackage),
                    labels.empty() ? "that index offers no CUDA toolkit wheels; check --index-url"
                                   : "it has: " + join(labels, ", ") + " (`cudaenv list-remote --source pypi`)");
}

PackageIndex::PackageIndex(std::string url, const FetchSettings& fetch) : url_(std::move(url)) {
  while (!url_.empty() && url_.back() == '/') url_.pop_back();
  options_.fetch = fetch;
  options_.tries = 3;
  options_.low_speed_seconds = 20;
}

Result<std::vector<IndexFile>> PackageIndex::files(const std::string& project) {
  std::string name = normalize_project_name(project);
  if (auto cached = pages_.find(name); cached != pages_.end()) return cached->second;
  std::string page_url = url_ + "/" + name + "/";
  auto page = fetch_text(page_url, options_, kSimpleIndexAccept);
  if (!page) {
    Error error = page.take_error();
    error.hint = "check --index-url, PIP_INDEX_URL or pip's index-url (`pip config list`); the index must serve " + name +
                 " (PEP 503 or PEP 691)";
    return error;
  }
  std::vector<IndexFile> files = parse_project_page(*page);
  for (IndexFile& file : files) {
    file.url = resolve_url(page_url, file.url);
    if (!may_follow(page_url, file.url)) {
      return make_error(page_url + " links " + file.filename + " to " + file.url + ", which a remote page may not: refused",
                        "an index served over http(s) must serve its files over http(s) too (pip does not follow a remote "
                        "page to local files either); check --index-url, PIP_INDEX_URL or pip's index-url");
    }
  }
  return pages_[name] = std::move(files);
}

Result<std::string> PackageIndex::wheel_metadata(const IndexFile& wheel) {
  if (wheel.sha256.empty()) {
    return make_error(url_ + " lists " + wheel.filename + " without a sha256",
                      "cudaenv reads only wheels it can check: use an index that publishes hashes");
  }
  if (auto cached = metadata_.find(wheel.url); cached != metadata_.end()) return cached->second;
  CUDAENV_TRY_ASSIGN(auto bytes, fetch_text(wheel.url, options_));
  if (bytes.size() > kMaxMetapackageBytes) {
    return make_error(wheel.url + " is larger than a metapackage: refused",
                      "check --index-url: the index serves something else than NVIDIA's cuda-toolkit");
  }
  std::string actual = sha256_hex(bytes);
  if (actual != wheel.sha256) {
    return make_error(wheel.url + " has sha256 " + actual + " but " + url_ + " says " + wheel.sha256,
                      "the index or a proxy serves an altered file: nothing was installed; run the command again or "
                      "use another --index-url");
  }
  CUDAENV_TRY_ASSIGN(auto metadata, read_wheel_metadata(bytes, wheel.url));
  return metadata_[wheel.url] = std::move(metadata);
}

Result<std::uint64_t> PackageIndex::size_of(const IndexFile& wheel) {
  if (auto cached = sizes_.find(wheel.url); cached != sizes_.end()) return cached->second;
  CUDAENV_TRY_ASSIGN(auto size, fetch_size(wheel.url, options_));
  if (size > kMaxArchiveBytes) {
    return make_error(wheel.url + " is " + std::to_string(size) + " bytes, more than any CUDA wheel: refused",
                      "check --index-url: the index serves something else than NVIDIA's wheels");
  }
  return sizes_[wheel.url] = size;
}

PlanFiles plan_wheel_files(PackageIndex& index, const ProfileCatalog& profiles) {
  return [&index, &profiles](const InstallRequest& request, const std::function<bool()>& should_stop) {
    index.set_should_stop(should_stop);
    return plan_wheels(
        index, profiles,
        WheelRequest{
            .label = request.label, .profile = request.profile, .components = request.components, .platform = request.platform});
  };
}

}  // namespace cudaenv
