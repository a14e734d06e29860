#include "install/installer.h"

#include <malloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "install/checked_manifest.h"
#include "install/downloader.h"
#include "install/extractor.h"
#include "store/rehash.h"
#include "util/atomic_file.h"
#include "util/file_lock.h"
#include "util/file_system.h"
#include "util/sha256.h"
#include "util/json_reader.h"

namespace cudaenv {

namespace {

std::atomic<bool> g_interrupted{false};

void on_interrupt(int) { g_interrupted = true; }

// SIGINT/SIGTERM set a flag the download and extraction loops poll, so the staging folder is
// removed and partial downloads kept instead of dying half-way.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted = false;
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// Extraction needs the staging folder as working directory (see extract_archive).
class WorkingDirectory {
 public:
  static Result<std::unique_ptr<WorkingDirectory>> enter(const fs::path& dir) {
    std::error_code ec;
    fs::path previous = fs::current_path(ec);
    if (ec || ::chdir(dir.c_str()) != 0) return make_error("cannot enter " + dir.string() + ": " + std::strerror(errno));
    return std::unique_ptr<WorkingDirectory>(new WorkingDirectory(previous));
  }
  ~WorkingDirectory() {
    if (::chdir(previous_.c_str()) != 0) (void)::chdir("/");
  }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

 private:
  explicit WorkingDirectory(fs::path previous) : previous_(std::move(previous)) {}
  fs::path previous_;
};

// Extracts verified archives on a few threads while the rest still download.
class ExtractionPool {
 public:
  ExtractionPool(size_t threads, std::function<Status(size_t)> work) : work_(std::move(work)) {
    for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
  }
  ~ExtractionPool() { (void)finish(); }
  ExtractionPool(const ExtractionPool&) = delete;
  ExtractionPool& operator=(const ExtractionPool&) = delete;

  void submit(size_t index) {
    std::lock_guard lock(mutex_);
    queue_.push_back(index);
    ready_.notify_one();
  }
  bool failed() const { return failed_; }
  // Waits for the queued work; the first error, if any.
  Status finish() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      ready_.notify_all();
    }
    for (std::thread& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
    if (error_) return *error_;
    return ok_status();
  }

 private:
  void loop() {
    while (true) {
      size_t index = 0;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return closed_ || !queue_.empty(); });
        if (queue_.empty()) return;
        index = queue_.front();
        queue_.pop_front();
      }
      if (failed_) continue;
      Status status = work_(index);
      if (!status) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = status.take_error();
        failed_ = true;
      }
    }
  }

  std::function<Status(size_t)> work_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<size_t> queue_;
  bool closed_ = false;
  std::atomic<bool> failed_{false};
  std::optional<Error> error_;
};

bool is_link(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

bool exists_no_follow(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

void remove_tree(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

fs::path install_lock_path(const Layout& layout, const std::string& label) {
  return layout.locks_dir() / ("install-" + label);
}

// ".staging-12.1.1-4242" -> "12.1.1": the label whose install lock guards the folder.
std::optional<std::string> work_folder_label(const std::string& name) {
  for (const char* prefix : {".staging-", ".old-", ".removing-"}) {
    if (name.rfind(prefix, 0) != 0) continue;
    std::string rest = name.substr(std::strlen(prefix));
    size_t dash = rest.rfind('-');
    if (dash == std::string::npos || dash == 0) return std::nullopt;
    return rest.substr(0, dash);
  }
  return std::nullopt;
}

// A work folder is stale when no process holds its label's install lock, which its maker
// held for as long as it worked: the kernel (or the NFS server) says so, across PID
// namespaces and hosts, where a PID says nothing. This label's lock is ours already.
void clean_stale_work_folders(const Layout& layout, const std::string& label, ProgressReporter& progress) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(layout.versions_dir(), ec)) {
    auto owner = work_folder_label(entry.path().filename().string());
    if (!owner) continue;
    std::optional<FileLock> held = *owner == label ? std::nullopt : FileLock::try_acquire(install_lock_path(layout, *owner));
    if (*owner != label && !held) continue;  // its install is running
    progress.note("removing stale " + entry.path().string() + " left by an interrupted run");
    remove_tree(entry.path());
  }
}

struct InstalledState {
  std::string profile;
  std::vector<std::string> components;
  std::vector<ReceiptArchive> archives;  // components, then libraries
};

Result<ReceiptArchive> receipt_archive(const JsonValue& entry, bool library) {
  auto name = entry.string_at("name");
  if (!name) return name.take_error();
  auto version = entry.optional_string("version");
  if (!version) return version.take_error();
  auto sha256 = entry.optional_string("sha256");
  if (!sha256) return sha256.take_error();
  return ReceiptArchive{std::move(*name), version->value_or(""), sha256->value_or(""), library};
}

// A receipt that is missing, unreadable or damaged (wrong JSON types included) counts as none.
std::optional<InstalledState> read_receipt(const fs::path& home) {
  fs::path path = home / kInstallReceiptName;
  auto text = RealFileSystem().read_file(path);
  if (!text) return std::nullopt;
  auto root = JsonValue::parse(*text, path.string());
  if (!root) return std::nullopt;
  InstalledState state;
  auto profile = root->optional_string("profile");
  auto components = root->find("components");
  auto libraries = root->find("libraries");
  if (!profile || !components || !libraries) return std::nullopt;
  state.profile = profile->value_or("");
  for (const auto& [list, library] : {std::pair{&*components, false}, std::pair{&*libraries, true}}) {
    if (!*list) continue;
    auto entries = (*list)->elements();
    if (!entries) return std::nullopt;
    for (const JsonValue& entry : *entries) {
      auto archive = receipt_archive(entry, library);
      if (!archive) return std::nullopt;
      if (!library) state.components.push_back(archive->name);
      state.archives.push_back(std::move(*archive));
    }
  }
  return state;
}

// Whether an existing install already has what the request asks for, judged without the network
// (only "full" needs the manifest, and a full install covers every profile). The profile has
// been checked to exist.
bool covers(const InstalledState& state, const ProfileCatalog& profiles, const InstallRequest& request) {
  std::set<std::string> have(state.components.begin(), state.components.end());
  std::vector<std::string> wanted = request.components;
  if (request.profile == "full") {
    if (state.profile != "full") return false;
  } else if (state.profile != "full") {
    const auto& listed = profiles.by_major.at(parse_version(request.label)->major()).at(request.profile);
    wanted.insert(wanted.end(), listed.begin(), listed.end());
  }
  bool libraries = std::all_of(request.libraries.begin(), request.libraries.end(), [&](const PlannedLibrary& library) {
    return std::any_of(state.archives.begin(), state.archives.end(), [&](const ReceiptArchive& archive) {
      return archive.library && archive.name == library.name && archive.sha256 == library.archive.artifact.sha256;
    });
  });
  return libraries && std::all_of(wanted.begin(), wanted.end(), [&](const std::string& entry) {
    std::vector<std::string> keys = profiles.alternatives(entry);
    return std::any_of(keys.begin(), keys.end(), [&](const std::string& key) { return have.count(key) > 0; });
  });
}

// nvcc without a targets/ folder links from lib64; the redist archives ship lib/.
Status add_lib64_link(const fs::path& root) {
  fs::path lib = root / "lib", lib64 = root / "lib64";
  std::error_code ec;
  // The extractor refuses such links; a merge must never move files through one anyway.
  for (const fs::path& folder : {lib, lib64}) {
    if (is_link(folder)) return make_error("the archives made " + folder.string() + " a symlink; nothing was installed");
  }
  if (fs::is_directory(lib64, ec) && !is_link(lib64)) {
    if (!exists_no_follow(lib)) {
      fs::rename(lib64, lib, ec);
    } else {
      for (const auto& entry : fs::directory_iterator(lib64, ec)) fs::rename(entry.path(), lib / entry.path().filename(), ec);
      if (!ec) fs::remove(lib64, ec);
    }
    if (ec) return make_error("cannot merge " + lib64.string() + " into lib/: " + ec.message());
  }
  if (fs::is_directory(lib, ec) && !exists_no_follow(lib64)) {
    fs::create_symlink("lib", lib64, ec);
    if (ec) return make_error("cannot create " + lib64.string() + ": " + ec.message());
  }
  return ok_status();
}

Status write_metadata(const fs::path& root, const InstallRequest& request, const std::string& manifest_sha256,
                      const std::vector<PlannedArchive>& plan) {
  nlohmann::ordered_json version;
  version["cuda"] = {{"name", "CUDA SDK"}, {"version", request.label}};
  nlohmann::ordered_json receipt;
  receipt["label"] = request.label;
  receipt["profile"] = request.profile;
  receipt["platform"] = request.platform;
  receipt["source"] = request.base_url;
  receipt["manifest"] = {{"url", manifest_url(request.base_url, request.label)},
                         {"sha256", manifest_sha256}};
  receipt["components"] = nlohmann::ordered_json::array();
  for (const PlannedArchive& archive : plan) {
    version[archive.component] = {{"name", archive.component}, {"version", archive.version}};
    receipt["components"].push_back({{"name", archive.component},
                                     {"version", archive.version},
                                     {"url", request.base_url + archive.artifact.relative_path},
                                     {"sha256", archive.artifact.sha256},
                                     {"size", archive.artifact.size}});
  }
  // No time or host in it: two installs from one cuda.lock write the same receipt.
  receipt["libraries"] = nlohmann::ordered_json::array();
  for (const PlannedLibrary& library : request.libraries) {
    version[library.name] = {{"name", library.name}, {"version", library.archive.version}};
    receipt["libraries"].push_back({{"name", library.name},
                                    {"release", library.release},
                                    {"version", library.archive.version},
                                    {"url", library.url},
                                    {"sha256", library.archive.artifact.sha256},
                                    {"size", library.archive.artifact.size},
                                    {"source", library.source},
                                    {"source_sha256", library.source_sha256}});
  }
  CUDAENV_TRY(write_file_atomically(root / "version.json", json_text(version)));
  return write_file_atomically(root / kInstallReceiptName, json_text(receipt));
}

// staging -> versions/<label>, replacing an older install of the label only once the new one is whole.
Status move_into_place(const fs::path& staging, const fs::path& target) {
  fs::path old = target.parent_path() / (".old-" + target.filename().string() + "-" + std::to_string(::getpid()));
  bool replacing = exists_no_follow(target);
  if (replacing && ::rename(target.c_str(), old.c_str()) != 0) {
    return make_error("cannot move the old " + target.string() + " aside: " + std::strerror(errno));
  }
  if (::rename(staging.c_str(), target.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    if (replacing) (void)::rename(old.c_str(), target.c_str());
    return make_error("cannot rename " + staging.string() + " to " + target.string() + ": " + reason);
  }
  if (replacing) remove_tree(old);
  return ok_status();
}

std::vector<DownloadJob> download_jobs(const std::vector<PlannedArchive>& plan, const InstallRequest& request,
                                       const fs::path& cache) {
  std::vector<DownloadJob> jobs;
  for (const PlannedArchive& archive : plan) {
    fs::path name = fs::path(archive.artifact.relative_path).filename();
    jobs.push_back(DownloadJob{archive.component, request.base_url + archive.artifact.relative_path, cache / name,
                               archive.artifact.size, archive.artifact.sha256});
  }
  for (const PlannedLibrary& library : request.libraries) {
    fs::path name = fs::path(library.url.substr(library.url.rfind('/') + 1));
    jobs.push_back(DownloadJob{library.name, library.url, cache / name, library.archive.artifact.size,
                               library.archive.artifact.sha256});
  }
  return jobs;
}

Status download_and_extract(const std::vector<DownloadJob>& jobs, const fs::path& staging, int jobs_wanted,
                            ProgressReporter& progress) {
  // The xz decoder threads allocate block-sized buffers; a fixed mmap threshold hands each back
  // to the system when freed instead of letting glibc keep it in a per-thread arena.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  auto cwd = WorkingDirectory::enter(staging);
  if (!cwd) return cwd.take_error();
  auto stop = [] { return g_interrupted.load(); };
  size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, std::max(1, jobs_wanted));
  ExtractionPool pool(threads, [&](size_t i) -> Status {
    progress.extracting(i);
    Status extracted = extract_archive(jobs[i].destination, jobs[i].component, stop);
    if (!extracted) {
      Error error = extracted.take_error();
      if (error.exit_code != 130) error.message += " (downloaded from " + jobs[i].url + ")";
      return error;
    }
    progress.extracted(i);
    return ok_status();
  });
  DownloadOptions options;
  options.jobs = jobs_wanted;
  // NVIDIA's xz archives unpack to about twice their size or more.
  std::uint64_t archive_bytes = 0;
  for (const DownloadJob& job : jobs) archive_bytes += job.size;
  options.also_needed.push_back(SpaceNeed{staging, 2 * archive_bytes});
  options.should_stop = [&] { return g_interrupted.load() || pool.failed(); };
  Status downloaded = download_all(jobs, options, progress, [&](size_t i) { pool.submit(i); });
  Status extracted = pool.finish();
  if (g_interrupted) return interrupted_error();
  if (!extracted) return extracted;  // the cause when a failed extraction stopped the downloads
  return downloaded;
}

}  // namespace

std::vector<std::string> installed_components(const fs::path& home) {
  auto state = read_receipt(home);
  return state ? state->components : std::vector<std::string>{};
}

std::optional<std::vector<ReceiptArchive>> installed_archives(const fs::path& home) {
  auto state = read_receipt(home);
  if (!state) return std::nullopt;
  return state->archives;
}

Result<InstallResult> install_release(const Layout& layout, const ReleaseCatalog& releases,
                                      const ProfileCatalog& profiles, const InstallRequest& request,
                                      ProgressReporter& progress) {
  CUDAENV_TRY(check_release_label(request.label));
  CUDAENV_TRY(check_profile(profiles, request.label, request.profile));
  fs::path versions = layout.versions_dir();
  fs::path target = versions / request.label;
  fs::path cache = layout.cache_dir() / request.label;
  std::error_code ec;
  for (const fs::path& dir : {versions, cache}) {
    fs::create_directories(dir, ec);
    if (ec) return make_error("cannot create " + dir.string() + ": " + ec.message(), "check that CUDAENV_ROOT is writable");
  }
  auto lock = FileLock::acquire(install_lock_path(layout, request.label), [&] {
    progress.note("another cudaenv is installing CUDA " + request.label + "; waiting for it to finish");
  });
  if (!lock) return lock.take_error();
  clean_stale_work_folders(layout, request.label, progress);

  InstallRequest effective = request;
  if (is_link(target)) {
    return make_error("CUDA " + request.label + " is a registered toolkit (" + target.string() + " is a link)",
                      "run `cudaenv uninstall " + request.label + "` to unregister it first");
  }
  if (exists_no_follow(target) && !request.force) {
    auto state = read_receipt(target);
    if (!state || covers(*state, profiles, request)) return InstallResult{true, target, {}, {}};
    for (const std::string& component : state->components) effective.components.push_back(component);
    progress.note("CUDA " + request.label + " is installed without some requested components; reinstalling with them");
  }

  InterruptGuard interrupts;
  DownloadOptions manifest_options;
  manifest_options.should_stop = [] { return g_interrupted.load(); };
  auto manifest_text = fetch_checked_manifest(releases, effective.base_url, effective.label,
                                              effective.skip_manifest_pin, manifest_options, progress);
  if (!manifest_text) return manifest_text.take_error();
  auto manifest = parse_redist_manifest(*manifest_text, manifest_url(effective.base_url, effective.label));
  if (!manifest) return manifest.take_error();
  auto plan = plan_install(*manifest, profiles,
                           PlanRequest{effective.label, effective.profile, effective.components, effective.platform});
  if (!plan) return plan.take_error();
  if (effective.check_plan) CUDAENV_TRY(effective.check_plan(*plan, sha256_hex(*manifest_text)));

  std::vector<DownloadJob> jobs = download_jobs(*plan, effective, cache);
  std::vector<std::string> names;
  std::vector<std::uint64_t> sizes;
  for (const DownloadJob& job : jobs) {
    names.push_back(job.component);
    sizes.push_back(job.size);
  }
  fs::path staging = versions / (".staging-" + request.label + "-" + std::to_string(::getpid()));
  remove_tree(staging);
  fs::create_directory(staging, ec);
  if (ec) return make_error("cannot create " + staging.string() + ": " + ec.message(), "check that CUDAENV_ROOT is writable");

  progress.begin(names, sizes, "CUDA " + request.label);
  Status built = download_and_extract(jobs, staging, effective.jobs, progress);
  progress.end();
  if (built) built = add_lib64_link(staging);
  if (built) built = check_links_inside(staging);
  if (built) built = write_metadata(staging, effective, sha256_hex(*manifest_text), *plan);
  if (built && g_interrupted) built = interrupted_error();
  if (built) built = move_into_place(staging, target);
  if (!built) {
    remove_tree(staging);
    return built.take_error();
  }
  if (!effective.keep_downloads) {
    for (const DownloadJob& job : jobs) fs::remove(job.destination, ec);
    fs::remove(cache, ec);  // only when empty
  }
  auto rehashed = rehash_after_change(layout);
  if (!rehashed) progress.note("warning: CUDA " + request.label + " is installed but the shims were not rebuilt: " +
                               rehashed.error().message + " (run `cudaenv rehash`)");
  return InstallResult{false, target, std::move(*plan), effective.libraries};
}

Status remove_installed(const Layout& layout, const std::string& label) {
  auto lock = FileLock::acquire(install_lock_path(layout, label));
  if (!lock) return lock.take_error();
  fs::path target = layout.versions_dir() / label;
  fs::path doomed = layout.versions_dir() / (".removing-" + label + "-" + std::to_string(::getpid()));
  if (::rename(target.c_str(), doomed.c_str()) != 0) {
    return make_error("cannot remove " + target.string() + ": " + std::strerror(errno),
                      "check that " + layout.versions_dir().string() + " is writable");
  }
  std::error_code ec;
  fs::remove_all(doomed, ec);
  if (ec) return make_error("removed CUDA " + label + " from versions/, but " + doomed.string() + " is left: " + ec.message());
  return ok_status();
}

}  // namespace cudaenv
