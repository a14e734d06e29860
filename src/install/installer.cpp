#include "install/installer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <future>
#include <iterator>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "core/cuda_toml.h"
#include "install/arriving_file.h"
#include "install/core_slots.h"
#include "install/downloader.h"
#include "install/extractor.h"
#include "install/library.h"
#include "install/plan.h"
#include "util/file_system.h"
#include "util/json_reader.h"
#include "util/process.h"
#include "util/strings.h"
#include "util/url.h"

namespace cudaenv {

namespace {

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

fs::path install_lock_path(const Layout& layout, const std::string& label) { return layout.locks_dir() / ("install-" + label); }

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

// A receipt that is missing, unreadable or damaged counts as none.
std::optional<InstallReceipt> read_receipt(const fs::path& home) {
  fs::path path = home / kInstallReceiptName;
  auto text = RealFileSystem().read_file(path);
  if (!text) return std::nullopt;
  return parse_receipt(*text, path.string());
}

// Whether an existing install already has what the request asks for, judged without the network
// (only "full" needs the manifest, and a full install covers every profile). The profile has
// been checked to exist.
bool covers(const InstallReceipt& receipt, const ProfileCatalog& profiles, const InstallRequest& request) {
  std::set<std::string> have;
  for (const Archive& archive : receipt.archives) have.insert(archive.name);
  std::vector<std::string> wanted = request.components;
  for (const std::string& library : request.libraries) wanted.push_back(library.substr(0, library.find('@')));
  // A library asked for at a version ("cudnn@9.19", doctor's fix) is covered only by a matching one.
  for (const std::string& text : request.libraries) {
    auto spec = parse_library_spec(text, "library");
    auto prefix = spec && !spec->version.empty() ? parse_version(spec->version) : std::nullopt;
    if (!prefix) continue;
    bool matching = std::any_of(receipt.archives.begin(), receipt.archives.end(), [&](const Archive& file) {
      auto version = parse_version(file.version);
      return file.name == spec->name && version && version_matches(*prefix, *version);
    });
    if (!matching) return false;
  }
  if (request.profile == "full") {
    if (receipt.profile != "full") return false;
  } else if (receipt.profile != "full") {
    const auto& listed = profiles.by_major.at(parse_version(request.label)->major()).at(request.profile);
    wanted.insert(wanted.end(), listed.begin(), listed.end());
  }
  return std::all_of(wanted.begin(), wanted.end(), [&](const std::string& entry) {
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

// Wheels cannot hold symlinks, so their lib/ has libcudart.so.13 (libnccl.so.2) without the
// libcudart.so that `-lcudart` links against (the redist archives ship both): each such library
// gets its link. The links made, below `root`, each with the file it points to.
Result<std::vector<std::pair<std::string, std::string>>> add_soname_links(const fs::path& root) {
  std::vector<std::pair<std::string, std::string>> made;
  fs::path lib = root / "lib";
  std::error_code ec;
  if (!fs::is_directory(lib, ec)) return made;
  for (const auto& entry : fs::directory_iterator(lib, ec)) {
    std::string name = entry.path().filename().string();
    size_t so = name.find(".so.");
    if (so == std::string::npos || so == 0 || !entry.is_regular_file(ec) || is_link(entry.path())) continue;
    fs::path link = lib / name.substr(0, so + 3);
    if (exists_no_follow(link)) continue;
    fs::create_symlink(name, link, ec);
    if (ec) return make_error("cannot create " + link.string() + ": " + ec.message(), "check that CUDAENV_ROOT is writable");
    made.emplace_back("lib/" + link.filename().string(), "lib/" + name);
  }
  if (ec) return make_error("cannot list " + lib.string() + ": " + ec.message());
  return made;
}

// Each archive's root files (its LICENSE) were kept in licenses/<component>/; the toolkit's root
// gets one copy of each name, from the first component in name order, so the tree is the same
// whatever order the archives were extracted in.
Status copy_root_files(const fs::path& root) {
  std::error_code ec;
  fs::path kept = root / kComponentFilesFolder;
  if (!fs::is_directory(fs::symlink_status(kept, ec))) return ok_status();
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(kept, ec)) folders.push_back(entry.path());
  std::sort(folders.begin(), folders.end());
  for (const fs::path& folder : folders) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      if (entry.is_regular_file(ec) && !is_link(entry.path())) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      fs::path target = root / file.filename();
      if (exists_no_follow(target)) continue;
      fs::copy_file(file, target, ec);
      if (ec) return make_error("cannot copy " + file.string() + " to " + target.string() + ": " + ec.message());
    }
  }
  if (ec) return make_error("cannot list " + kept.string() + ": " + ec.message());
  return ok_status();
}

Status write_metadata(const fs::path& root, const InstallRequest& request, const InstallPlan& plan,
                      const LibraryContents& libraries) {
  nlohmann::ordered_json version;
  version["cuda"] = {{"name", "CUDA SDK"}, {"version", request.label}};
  for (const Archive& file : plan.files) version[file.name] = {{"name", file.name}, {"version", file.version}};
  CUDAENV_TRY(write_file_atomically(root / "version.json", json_text(version)));
  return write_file_atomically(root / kInstallReceiptName, render_receipt(request, plan, libraries));
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

std::vector<DownloadJob> download_jobs(const InstallPlan& plan, const fs::path& cache) {
  std::vector<DownloadJob> jobs;
  for (const Archive& archive : plan.files) {
    jobs.push_back(DownloadJob{.archive = archive, .destination = cache / fs::path(strip_url_query(archive.url)).filename()});
  }
  return jobs;
}

// A library's members where it may not write, said once per archive.
void report_outside(const DownloadJob& job, const std::vector<std::string>& outside, ProgressReporter& progress) {
  if (outside.empty()) return;
  std::vector<std::string> named(outside.begin(),
                                 outside.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(outside.size(), 5)));
  std::string more = outside.size() > named.size() ? " and " + std::to_string(outside.size() - named.size()) + " more" : "";
  progress.note("warning: " + job.archive.name + ": " + job.destination.filename().string() + " holds " +
                std::to_string(outside.size()) + " file" + (outside.size() == 1 ? "" : "s") +
                " where a library may not write (it may write " + library_files(job.archive.name)->described +
                "), not installed: " + join(named, ", ") + more);
}

// At most this many archives are decoded at once, whatever the cores: an xz decoder holds its
// dictionary (8 MiB for xz -6) from its first byte to its last, and an install is to stay within
// 64 MiB. An archive waiting for a decoder holds no memory; its transfer pauses (the bytes wait
// on disk), so the link goes to the archives being decoded.
constexpr unsigned kMostDecoders = 4;

// One archive's extraction, on its own thread, as its bytes arrive: it waits for the download to
// begin and for one of `decoders`, unpacks on a core of `cores` (lending it while it waits for
// bytes), and records its links or its error.
class Unpacking {
 public:
  Unpacking(const DownloadJob& job, size_t index, ArrivingFile& arriving, CoreSlots& cores, CoreSlots& decoders)
      : job_(job), index_(index), arriving_(arriving), cores_(cores), decoders_(decoders) {}

  // `failed` runs with the error when the extraction fails, unless the install is `stopping`
  // already: then the error is only a consequence (a read or a wait that was cut short).
  void run(const fs::path& staging, StagedFiles& files, ProgressReporter& progress, const std::function<bool()>& interrupted,
           const std::function<bool()>& stopping, const std::function<void(Error, size_t)>& failed) {
    std::uint64_t priority = job_.archive.size;
    bool holding = false;
    CoreTurns turns{[&] { return cores_.yield(priority); },
                    [&] {
                      cores_.give_back();
                      holding = false;
                    },
                    [&] { return holding = cores_.take(priority); }};
    arriving_.set_turns(&turns);
    if (!arriving_.wait_begun() || !decoders_.take(priority)) return;
    holding = cores_.take(priority);
    if (!holding) {
      decoders_.give_back();
      return;
    }
    progress.extracting(index_);
    auto extracted = extract_archive(arriving_, job_.destination, job_.archive.name, staging, files, interrupted, &turns);
    arriving_.set_turns(nullptr);
    if (holding) cores_.give_back();
    decoders_.give_back();
    if (!extracted) {
      if (stopping()) return;
      Error error = extracted.take_error();
      error.message += " (downloaded from " + job_.archive.url + ")";
      failed(std::move(error), index_);
      return;
    }
    unpacked_ = std::move(*extracted);
    progress.extracted(index_);
  }

  UnpackedArchive& unpacked() { return unpacked_; }

 private:
  const DownloadJob& job_;
  size_t index_;
  ArrivingFile& arriving_;
  CoreSlots& cores_;
  CoreSlots& decoders_;
  UnpackedArchive unpacked_;
};

// Every archive unpacks into `staging` while it downloads (ArrivingFile), on one thread each,
// the largest first on the cores (CoreSlots); a transfer pauses while its extraction lags. An
// extraction gets its archive's end only once the whole file matched its sha256, so the install
// goes on only when every archive has matched; any failure stops the rest, and the caller removes
// the staging folder.
Result<LibraryContents> download_and_extract(std::vector<DownloadJob> jobs, const fs::path& staging, int jobs_wanted,
                                             const FetchSettings& fetch, ProgressReporter& progress,
                                             const std::function<bool()>& interrupted) {
  std::vector<ArrivingFile> arriving(jobs.size());
  CoreSlots cores(usable_cores());
  CoreSlots decoders(kMostDecoders);
  std::vector<std::unique_ptr<Unpacking>> unpacking;
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].arriving = &arriving[i];
    unpacking.push_back(std::make_unique<Unpacking>(jobs[i], i, arriving[i], cores, decoders));
  }
  // The first failure of an extraction stops every other extraction (their reads fail, their
  // waits for a core end) and download, whose errors say nothing more; but the archive that
  // failed downloads to its end when it has not matched its sha256 yet, since a mismatch (bytes
  // damaged on the way) is then the cause to report.
  std::mutex failure_mutex;
  std::optional<Error> first_failure;
  constexpr size_t kNone = SIZE_MAX;
  std::atomic<size_t> awaited{kNone};
  std::atomic<bool> failed{false};
  auto stop_all = [&](std::optional<Error> cause, size_t index) {
    {
      std::lock_guard lock(failure_mutex);
      if (failed) return;
      first_failure = std::move(cause);
      if (index != kNone && !arriving[index].is_verified()) awaited = index;
      failed = true;
    }
    cores.stop();
    decoders.stop();
    for (ArrivingFile& file : arriving) file.stop();
  };
  auto stopping = [&] { return failed.load() || interrupted(); };
  StagedFiles files;
  std::vector<std::thread> threads;
  for (auto& one : unpacking) {
    threads.emplace_back([&, one = one.get()] {
      one->run(staging, files, progress, interrupted, stopping,
               [&](Error error, size_t index) { stop_all(std::move(error), index); });
    });
  }
  DownloadOptions options;
  options.jobs = jobs_wanted;
  options.fetch = fetch;
  // NVIDIA's xz archives unpack to about twice their size or more.
  std::uint64_t archive_bytes = 0;
  for (const DownloadJob& job : jobs) archive_bytes += job.archive.size;
  options.also_needed.push_back(SpaceNeed{.dir = staging, .bytes = 2 * archive_bytes});
  options.should_stop = interrupted;
  options.wanted = [&](size_t i) { return !failed || awaited == i; };
  Status downloaded = download_all(jobs, options, progress);
  if (!downloaded) stop_all(std::nullopt, kNone);
  for (std::thread& thread : threads) thread.join();
  if (interrupted()) return interrupted_error();
  // A download's own failure (a sha256 mismatch, an HTTP error) is the cause; else the first
  // extraction that failed.
  if (!downloaded) return downloaded.take_error();
  if (first_failure) return *first_failure;
  for (const FileOverlap& overlap : files.overlaps()) {
    progress.note("warning: " + join(overlap.others, ", ") + " and " + overlap.kept + " ship " + overlap.path +
                  " with different contents: the toolkit has " + overlap.kept + "'s (the first by name)");
  }
  LibraryContents libraries;
  std::vector<ArchiveLink> all;
  for (size_t i = 0; i < jobs.size(); ++i) {
    UnpackedArchive& unpacked = unpacking[i]->unpacked();
    report_outside(jobs[i], unpacked.outside, progress);
    if (library_files(jobs[i].archive.name)) {
      std::vector<std::string>& added = libraries[jobs[i].archive.name];
      added = unpacked.files;
      for (const ArchiveLink& link : unpacked.links) added.push_back(link.path);
    }
    std::move(unpacked.links.begin(), unpacked.links.end(), std::back_inserter(all));
  }
  // Only now that no archive is being written (see make_links).
  CUDAENV_TRY(make_links(staging, std::move(all)));
  return libraries;
}

// What install_release holds between its steps.
struct Prepared {
  FileLock lock;
  fs::path target, cache;
  InstallRequest effective;  // the request and what an existing install already has
  bool already_installed = false;
};

Result<Prepared> prepare(const Layout& layout, const ProfileCatalog& profiles, const InstallRequest& request,
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
  CUDAENV_TRY_ASSIGN(auto lock, FileLock::acquire(install_lock_path(layout, request.label), [&] {
                       progress.note("another cudaenv is installing CUDA " + request.label + "; waiting for it to finish");
                     }));
  clean_stale_work_folders(layout, request.label, progress);

  Prepared prepared{.lock = std::move(lock), .target = target, .cache = cache, .effective = request};
  if (is_link(target)) {
    return make_error("CUDA " + request.label + " is a registered toolkit (" + target.string() + " is a link)",
                      "run `cudaenv uninstall " + request.label + "` to unregister it first");
  }
  if (exists_no_follow(target) && !request.force) {
    auto receipt = read_receipt(target);
    if (!receipt || covers(*receipt, profiles, request)) {
      prepared.already_installed = true;
      return prepared;
    }
    const auto& libraries = known_libraries();
    // The request's libraries come first, so a version asked for wins over the installed one.
    for (const Archive& archive : receipt->archives) {
      const std::string& component = archive.name;
      bool library = std::find(libraries.begin(), libraries.end(), component) != libraries.end();
      (library ? prepared.effective.libraries : prepared.effective.components).push_back(component);
    }
    progress.note("CUDA " + request.label + " is installed without some requested components; reinstalling with them");
  }
  return prepared;
}

// Downloads and unpacks the plan into a fresh staging folder beside versions/<label> and gives
// it the toolkit layout and metadata; nothing is left behind on failure.
Result<fs::path> stage(const InstallPlan& plan, const Prepared& prepared, const FetchSettings& fetch, ProgressReporter& progress,
                       const std::function<bool()>& interrupted) {
  std::vector<DownloadJob> jobs = download_jobs(plan, prepared.cache);
  for (DownloadJob& job : jobs) {
    job.in_memory = is_wheel(job.destination);
    job.only_to_resume = !prepared.effective.keep_downloads;
  }
  std::vector<std::string> names;
  std::vector<std::uint64_t> sizes;
  for (const DownloadJob& job : jobs) {
    names.push_back(job.archive.name);
    sizes.push_back(job.archive.size);
  }
  const std::string& label = prepared.effective.label;
  fs::path staging = prepared.target.parent_path() / (".staging-" + label + "-" + std::to_string(::getpid()));
  remove_tree(staging);
  std::error_code ec;
  fs::create_directory(staging, ec);
  if (ec) return make_error("cannot create " + staging.string() + ": " + ec.message(), "check that CUDAENV_ROOT is writable");

  progress.begin(names, sizes, "CUDA " + label);
  auto libraries = download_and_extract(jobs, staging, prepared.effective.jobs, fetch, progress, interrupted);
  Status built = libraries ? ok_status() : Status(libraries.error());
  progress.end();
  if (built) built = add_lib64_link(staging);
  bool has_wheels = std::any_of(jobs.begin(), jobs.end(), [](const DownloadJob& job) { return is_wheel(job.destination); });
  if (built && has_wheels) {
    // A link to a library's file is the library's too.
    auto links = add_soname_links(staging);
    if (!links) built = links.take_error();
    for (const auto& [link, target] : links ? *links : std::vector<std::pair<std::string, std::string>>{}) {
      for (auto& [library, added] : *libraries) {
        if (std::find(added.begin(), added.end(), target) != added.end()) added.push_back(link);
      }
    }
  }
  if (built) built = copy_root_files(staging);
  if (built) built = check_links_inside(staging);
  if (built) {
    for (auto& [library, added] : *libraries) std::sort(added.begin(), added.end());
    built = write_metadata(staging, prepared.effective, plan, *libraries);
  }
  if (built && interrupted()) built = interrupted_error();
  if (!built) {
    remove_tree(staging);
    return built.take_error();
  }
  return staging;
}

Status commit(const fs::path& staging, const Prepared& prepared) {
  Status moved = move_into_place(staging, prepared.target);
  if (!moved) remove_tree(staging);
  return moved;
}

// Once committed, the downloads are of no more use (a failed install keeps them, to resume).
// Freeing 1.3 GB of wheels took most of the time after the commit, so two threads share it, the
// largest first, beside `meanwhile` (the shims' rebuild).
Status remove_downloads_while(const Prepared& prepared, const InstallPlan& plan, const std::function<Status()>& meanwhile) {
  if (prepared.effective.keep_downloads) return meanwhile();
  std::vector<DownloadJob> jobs = download_jobs(plan, prepared.cache);
  std::sort(jobs.begin(), jobs.end(), [](const DownloadJob& a, const DownloadJob& b) { return a.archive.size > b.archive.size; });
  std::atomic<size_t> next{0};
  auto remove_some = [&] {
    std::error_code ec;
    for (size_t i; (i = next++) < jobs.size();) {
      fs::remove(jobs[i].destination, ec);
      fs::remove(part_path(jobs[i].destination), ec);  // one that stopped growing (DownloadJob)
    }
  };
  auto first = std::async(std::launch::async, remove_some);
  auto second = std::async(std::launch::async, remove_some);
  Status status = meanwhile();
  first.get();
  second.get();
  std::error_code ec;
  fs::remove(prepared.cache, ec);  // only when empty
  return status;
}

}  // namespace

std::optional<std::vector<Archive>> installed_files(const fs::path& home) {
  auto receipt = read_receipt(home);
  if (!receipt) return std::nullopt;
  return receipt->archives;
}

Result<InstallResult> install_release(const Layout& layout, const ProfileCatalog& profiles, const InstallRequest& request,
                                      const PlanFiles& plan_files, const FetchSettings& fetch, ProgressReporter& progress,
                                      const std::function<Status()>& rehash, const InterruptWatch& interrupts) {
  CUDAENV_TRY_ASSIGN(auto prepared, prepare(layout, profiles, request, progress));
  if (prepared.already_installed) return InstallResult{.already_installed = true, .home = prepared.target};
  interrupts.watch();
  const std::function<bool()>& interrupted = interrupts.interrupted;
  CUDAENV_TRY_ASSIGN(auto plan, plan_files(prepared.effective, interrupted));
  CUDAENV_TRY_ASSIGN(auto staging, stage(plan, prepared, fetch, progress, interrupted));
  CUDAENV_TRY(commit(staging, prepared));
  Status rehashed = remove_downloads_while(prepared, plan, rehash);
  if (!rehashed)
    progress.note("warning: CUDA " + request.label + " is installed but the shims were not rebuilt: " + rehashed.error().message +
                  " (run `cudaenv rehash`)");
  return InstallResult{.home = prepared.target, .plan = std::move(plan)};
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
