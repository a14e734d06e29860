#include "extensions/scan.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>
#include <string_view>

#include "extensions/dist_info.h"
#include "extensions/fatbin.h"
#include "extensions/ld_cache.h"
#include "extensions/loader.h"
#include "extensions/symbols.h"
#include "util/strings.h"

namespace cudaenv {

namespace fs = std::filesystem;

namespace {

// A walk never runs away on a huge or looping sys.path entry (a .pth to a home folder).
constexpr std::size_t kMaxEntries = 400000;
constexpr int kMaxDepth = 16;
constexpr std::size_t kCacheLimit = std::size_t{64} << 20;

// The libraries whose presence among a module's NEEDED makes it one of torch's or CUDA's.
constexpr std::array<std::string_view, 21> kWatchedLibraries = {
    "libc10",        "libtorch",    "libshm",      "libcudart", "libcuda.so", "libcublas", "libcufft",
    "libcurand",     "libcusolver", "libcusparse", "libcudnn",  "libnccl",    "libnvrtc",  "libnvJitLink",
    "libnvToolsExt", "libcupti",    "libnvshmem",  "libcufile", "libnpp",     "libnvjpeg", "libnvidia-ml"};

// What torch/__init__.py's _preload_cuda_deps loads from NVIDIA's wheels once libtorch_global_deps
// has brought libcudart in: (folder under nvidia/, file name prefix), in its order.
constexpr std::array<std::pair<std::string_view, std::string_view>, 16> kTorchPreloads = {
    {{"cublas", "libcublasLt.so."},
     {"cublas", "libcublas.so."},
     {"cudnn", "libcudnn.so."},
     {"cuda_nvrtc", "libnvrtc.so."},
     {"cuda_nvrtc", "libnvrtc-builtins.so."},
     {"cuda_runtime", "libcudart.so."},
     {"cuda_cupti", "libcupti.so."},
     {"cufft", "libcufft.so."},
     {"nvjitlink", "libnvJitLink.so."},
     {"cusparse", "libcusparse.so."},
     {"cusparselt", "libcusparseLt.so."},
     {"cusolver", "libcusolver.so."},
     {"nccl", "libnccl.so."},
     {"nvshmem", "libnvshmem_host.so."},
     {"cufile", "libcufile.so."},
     {"nvtx", "libnvToolsExt.so."}}};

bool is_identifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// "flash_attn_2_cuda" for flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so; none for a file no
// import can name.
std::optional<std::string> module_name(const fs::path& file) {
  std::string name = file.filename().string();
  if (name.size() < 4 || name.compare(name.size() - 3, 3, ".so") != 0) return std::nullopt;
  std::string stem = name.substr(0, name.find('.'));
  if (!is_identifier(stem)) return std::nullopt;
  return stem;
}

bool links_watched(const ElfFile& elf) {
  return std::any_of(elf.needed().begin(), elf.needed().end(), [](const std::string& needed) {
    return std::any_of(kWatchedLibraries.begin(), kWatchedLibraries.end(),
                       [&](std::string_view prefix) { return starts_with(needed, prefix); });
  });
}

// Whether the module needs C++ symbols of torch's namespaces (c10, at, torch): a module built
// with the other C++ ABI and --as-needed may NEED none of torch's libraries, its symbols being
// found in none of them.
bool needs_torch_symbols(const ElfFile& elf) {
  constexpr std::array<std::string_view, 6> kPrefixes = {"_ZN3c10", "_ZNK3c10", "_ZN2at", "_ZNK2at", "_ZN5torch", "_ZNK5torch"};
  for (const ElfSymbol& symbol : elf.undefined_symbols()) {
    for (std::string_view prefix : kPrefixes) {
      if (!symbol.weak && starts_with(symbol.name, prefix)) return true;
    }
  }
  return false;
}

// Every *.so under `folder` that import can reach: only folders whose names are identifiers
// are packages (site-packages/, *.dist-info/ and __pycache__/ are not), links to folders are not
// followed, and the walk is bounded.
void collect_shared_objects(const fs::path& folder, std::vector<fs::path>& files, std::size_t& budget,
                            std::vector<std::string>& notes) {
  std::error_code ec;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (budget == 0) {
      notes.push_back(folder.string() + ": stopped after " + std::to_string(kMaxEntries) + " files");
      return;
    }
    --budget;
    const fs::directory_entry& entry = *it;
    std::string name = entry.path().filename().string();
    if (entry.is_directory(ec)) {
      if (it.depth() >= kMaxDepth || !is_identifier(name)) it.disable_recursion_pending();
      continue;
    }
    if (name.ends_with(".so") && entry.is_regular_file(ec)) files.push_back(entry.path());
  }
}

// The *.so files of one sys.path entry: for what its dist-infos installed, their RECORDs say
// (torch alone has 15,000 files to walk); the rest of the entry is walked.
std::vector<fs::path> shared_objects_in(const FileSystemView& fs, const fs::path& root, const InstalledFiles& installed,
                                        std::size_t& budget, std::vector<std::string>& notes) {
  std::vector<fs::path> files;
  std::set<std::string> claimed;
  for (const auto& [relative, owner] : installed.owner) {
    claimed.insert(relative.substr(0, relative.find('/')));
    if (relative.ends_with(".so") && fs.kind(root / relative) == EntryKind::file) files.push_back(root / relative);
  }
  for (const std::string& name : fs.list_dir(root)) {
    if (claimed.count(name)) continue;
    fs::path path = root / name;
    if (name.ends_with(".so") && fs.kind(path) == EntryKind::file) {
      files.push_back(path);
    } else if (is_identifier(name) && fs.kind(path) == EntryKind::directory) {
      collect_shared_objects(path, files, budget, notes);
    }
  }
  return files;
}

LdCache read_ld_cache(const FileSystemView& fs, const fs::path& root, std::vector<std::string>& notes) {
  fs::path path = root / "etc/ld.so.cache";
  if (fs.kind(path) != EntryKind::file) return {};
  auto bytes = fs.read_file(path, kCacheLimit);
  if (!bytes) {
    notes.push_back(bytes.error().message);
    return {};
  }
  auto cache = parse_ld_cache({reinterpret_cast<const unsigned char*>(bytes->data()), bytes->size()}, path.string());
  if (!cache) {
    notes.push_back(cache.error().message);
    return {};
  }
  return std::move(*cache);
}

// The first file in `dir` named prefix + something ending in a digit (torch's glob "libX.so.*[0-9]").
std::optional<fs::path> preload_in(const FileSystemView& fs, const fs::path& dir, std::string_view prefix) {
  for (const std::string& name : fs.list_dir(dir)) {
    if (starts_with(name, prefix) && name.size() > prefix.size() && std::isdigit(static_cast<unsigned char>(name.back()))) {
      return dir / name;
    }
  }
  return std::nullopt;
}

// torch's process before any extension is imported: libtorch_global_deps (RTLD_GLOBAL), the
// NVIDIA wheel libraries torch preloads from sys.path, then torch._C and what it needs.
void load_torch(const FileSystemView& fs, const ScanRequest& request, LoaderModel& loader, std::vector<std::string>& notes) {
  auto note = [&](const LoadOutcome& outcome) {
    if (outcome.unreadable) notes.push_back(*outcome.unreadable);
  };
  fs::path lib = request.torch_dir / "lib";
  // A torch without it (a stripped or stand-in build) loads its libraries through torch._C alone.
  if (fs::path deps = lib / "libtorch_global_deps.so"; fs.kind(deps) != EntryKind::missing) note(loader.load(deps, true));
  bool cudart_loaded = false;
  for (const auto& object : loader.global_scope())
    cudart_loaded = cudart_loaded || starts_with(object->path.filename().string(), "libcudart.so");
  if (cudart_loaded) {
    for (const auto& [folder, prefix] : kTorchPreloads) {
      for (const fs::path& entry : request.sys_path) {
        std::vector<fs::path> dirs = {entry / "nvidia" / folder / "lib"};
        if (request.torch_cuda_major)
          dirs.push_back(entry / "nvidia" / ("cu" + std::to_string(*request.torch_cuda_major)) / "lib");
        dirs.push_back(entry / folder / "lib");
        std::optional<fs::path> found;
        for (const fs::path& dir : dirs) {
          if ((found = preload_in(fs, dir, prefix))) break;
        }
        if (found) {
          note(loader.load(*found));
          break;
        }
      }
    }
  }
  for (const std::string& name : fs.list_dir(request.torch_dir)) {
    if (starts_with(name, "_C.") && name.ends_with(".so")) note(loader.load(request.torch_dir / name));
  }
}

KernelCoverage coverage_of(const std::vector<FatbinEntry>& entries, const std::vector<ComputeCapability>& archs) {
  KernelCoverage coverage;
  auto add = [](std::vector<ArchEntry>& list, const ArchEntry& entry) {
    bool known = std::any_of(list.begin(), list.end(),
                             [&](const ArchEntry& e) { return e.capability == entry.capability && e.suffix == entry.suffix; });
    if (!known) list.push_back(entry);
  };
  for (const FatbinEntry& entry : entries) add(entry.arch.ptx ? coverage.ptx : coverage.sass, entry.arch);
  auto by_arch = [](const ArchEntry& a, const ArchEntry& b) {
    return a.capability < b.capability || (a.capability == b.capability && a.suffix < b.suffix);
  };
  std::sort(coverage.sass.begin(), coverage.sass.end(), by_arch);
  std::sort(coverage.ptx.begin(), coverage.ptx.end(), by_arch);
  for (const ComputeCapability& gpu : archs) {
    bool runs =
        std::any_of(entries.begin(), entries.end(), [&](const FatbinEntry& entry) { return code_runs_on(entry.arch, gpu); });
    if (!runs) coverage.uncovered.push_back(gpu);
  }
  return coverage;
}

// The packages modules belong to, read once per sys.path entry and dist-info.
class Owners {
 public:
  explicit Owners(const FileSystemView& fs) : fs_(fs) {}

  const InstalledFiles& installed(const fs::path& root) {
    auto files = installed_.find(root);
    if (files == installed_.end()) files = installed_.emplace(root, read_installed_files(fs_, root)).first;
    return files->second;
  }

  ExtensionPackage& package_of(const fs::path& root, const fs::path& file, std::vector<ExtensionPackage>& packages) {
    auto files = installed_.find(root);
    fs::path relative = file.lexically_relative(root);
    std::string key;
    ExtensionPackage fresh;
    if (auto owner = files->second.owner.find(relative.generic_string()); owner != files->second.owner.end()) {
      fs::path dist_info = files->second.dist_infos[owner->second];
      key = dist_info.string();
      if (auto distribution = read_distribution(fs_, dist_info)) {
        fresh.name = distribution->name;
        fresh.version = distribution->version;
        fresh.built_for_torch =
            distribution->requires_torch ? distribution->requires_torch : torch_in_version(distribution->version);
        fresh.built_for_cuda = cuda_in_version(distribution->version);
      } else {
        fresh.name = dist_info.stem().string();
      }
    } else {
      // Not installed by a package manager (built in place, a .pth folder): named by its top folder.
      fs::path top = *relative.begin();
      key = (root / top).string();
      fresh.name = top == relative ? module_name(file).value_or(top.string()) : top.string();
    }
    auto known = index_.find(key);
    if (known != index_.end()) return packages[known->second];
    index_[key] = packages.size();
    packages.push_back(std::move(fresh));
    return packages.back();
  }

 private:
  const FileSystemView& fs_;
  std::map<fs::path, InstalledFiles> installed_;
  std::map<std::string, std::size_t> index_;
};

}  // namespace

void scan_extensions(const FileSystemView& fs, const ScanRequest& request, ExtensionScan& scan) {
  LoaderSettings settings;
  settings.library_path = request.library_path;
  settings.cache = read_ld_cache(fs, request.machine_root, scan.unreadable);
  settings.system_dirs = system_library_dirs(request.machine_root);
  LoaderModel loader(std::move(settings));
  load_torch(fs, request, loader, scan.unreadable);

  std::size_t budget = kMaxEntries;
  std::set<fs::path> seen;
  Owners owners(fs);
  for (const fs::path& root : request.sys_path) {
    if (root.empty() || !root.is_absolute() || fs.kind(root) != EntryKind::directory) continue;
    if (request.stdlib && (root == *request.stdlib || root == *request.stdlib / "lib-dynload")) continue;
    std::vector<fs::path> files = shared_objects_in(fs, root, owners.installed(root), budget, scan.unreadable);
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      auto name = module_name(file);
      if (!name || !seen.insert(file.lexically_normal()).second) continue;
      auto object = loader.read(file);
      if (!object) {
        scan.unreadable.push_back(object.error().message);
        continue;
      }
      const ElfFile& elf = (*object)->elf;
      if (!elf.defines("PyInit_" + *name)) continue;  // a library, not something import loads
      auto fatbin = elf.section(".nv_fatbin");
      if (!fatbin) {
        scan.unreadable.push_back(fatbin.error().message);
        continue;
      }
      if (!links_watched(elf) && !*fatbin && !needs_torch_symbols(elf)) continue;
      ++scan.module_count;
      ExtensionModule module;
      module.file = file;
      LoadOutcome outcome = loader.load_alone(file);
      for (const std::string& soname : outcome.missing) module.missing_libraries.push_back({soname});
      // A missing library stops the loader first, and its symbols would only repeat it.
      if (outcome.missing.empty()) module.missing_symbols = missing_symbols(**object, outcome.scope, loader.global_scope());
      if (*fatbin) {
        auto entries = read_fatbin(**fatbin);
        if (entries) {
          module.kernels = coverage_of(*entries, scan.archs);
        } else {
          scan.unreadable.push_back(file.string() + ": .nv_fatbin: " + entries.error().message);
        }
      }
      owners.package_of(root, file, scan.packages).modules.push_back(std::move(module));
    }
  }
  scan.ran = true;
}

}  // namespace cudaenv
