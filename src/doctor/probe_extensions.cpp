// The probes of the layer above the toolkit: the compiled extensions the probed interpreter can
// import (extensions/scan.h), and the CUDA libraries the selected toolkit lacks that the loader
// would take from another toolkit.
#include <algorithm>
#include <array>
#include <string_view>

#include "core/toolkits.h"
#include "core/version_detect.h"
#include "doctor/probes.h"
#include "extensions/ld_cache.h"
#include "extensions/loader.h"
#include "extensions/scan.h"
#include "util/process.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

// The CUDA libraries a program loads by soname, and the redist component that carries each.
constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kToolkitLibraries = {{{"libcudart", "cuda_cudart"},
                                                                                              {"libnvrtc", "cuda_nvrtc"},
                                                                                              {"libnvrtc-builtins", "cuda_nvrtc"},
                                                                                              {"libnvJitLink", "libnvjitlink"},
                                                                                              {"libcublas", "libcublas"},
                                                                                              {"libcublasLt", "libcublas"},
                                                                                              {"libcufft", "libcufft"},
                                                                                              {"libcurand", "libcurand"},
                                                                                              {"libcusolver", "libcusolver"},
                                                                                              {"libcusparse", "libcusparse"},
                                                                                              {"libcupti", "cuda_cupti"},
                                                                                              {"libnvToolsExt", "cuda_nvtx"},
                                                                                              {"libnppc", "libnpp"},
                                                                                              {"libnvjpeg", "libnvjpeg"},
                                                                                              {"libcufile", "libcufile"},
                                                                                              {"libnvfatbin", "libnvfatbin"},
                                                                                              {"libnvvm", "libnvvm"}}};

std::vector<ComputeCapability> project_archs(const ProbeContext& context) {
  std::vector<ComputeCapability> archs;
  const auto* selection = std::get_if<Selection>(&context.selection);
  if (!selection || !selection->project) return archs;
  for (const std::string& entry : selection->project->arch) {
    if (auto arch = parse_arch_entry(entry)) archs.push_back(arch->capability);
  }
  return archs;
}

LdCache machine_ld_cache(const ProbeContext& context) {
  auto bytes = context.fs.read_file(context.machine_root / "etc/ld.so.cache", std::size_t{64} << 20);
  if (!bytes) return {};
  auto cache = parse_ld_cache({reinterpret_cast<const unsigned char*>(bytes->data()), bytes->size()}, "ld.so.cache");
  return cache ? std::move(*cache) : LdCache{};
}

std::vector<std::string> library_path(const ProbeContext& context) {
  return split(env_get(context.env, "LD_LIBRARY_PATH").value_or(""), ':');
}

}  // namespace

ExtensionScan probe_extensions(const ProbeContext& context, const Probes& probes) {
  ExtensionScan scan;
  const PythonProbe& python = probes.python;
  scan.torch_cxx11_abi = python.torch_cxx11_abi;
  scan.python_tag = python.python_tag;
  scan.platform = python.platform;
  scan.memory_available = memory_available(context.fs, context.machine_root);
  for (const Gpu& gpu : probes.driver.gpus) {
    if (std::find(scan.archs.begin(), scan.archs.end(), gpu.capability) == scan.archs.end()) scan.archs.push_back(gpu.capability);
  }
  if (!scan.archs.empty()) {
    scan.archs_source = "GPUs here";
  } else if (auto archs = project_archs(context); !archs.empty()) {
    scan.archs = archs;
    scan.archs_source = "cuda.toml arch (" + std::get<Selection>(context.selection).project->path.string() + ")";
  }
  if (!python.has_torch || !python.torch_dir) {
    scan.skipped = python.interpreter ? "torch is not importable in " + python.interpreter->string() : "no Python interpreter";
    return scan;
  }
  ScanRequest request;
  request.sys_path = python.sys_path;
  request.stdlib = python.stdlib;
  request.torch_dir = *python.torch_dir;
  if (python.torch_cuda) request.torch_cuda_major = python.torch_cuda->major();
  request.library_path = library_path(context);
  request.machine_root = context.machine_root;
  scan_extensions(context.fs, request, scan);
  return scan;
}

ToolkitLibrariesFound probe_toolkit_libraries_found(const ProbeContext& context, const ToolkitProbe& toolkit) {
  ToolkitLibrariesFound found;
  if (!toolkit.found || !toolkit.version) return found;
  found.ran = true;
  std::vector<fs::path> own_dirs = {toolkit.home / "lib64", toolkit.home / "lib"};
  for (const std::string& target : context.fs.list_dir(toolkit.home / "targets"))
    own_dirs.push_back(toolkit.home / "targets" / target / "lib");
  std::vector<std::string> own;
  for (const fs::path& dir : own_dirs) {
    for (std::string& name : context.fs.list_dir(dir)) own.push_back(std::move(name));
  }
  LoaderSettings settings;
  settings.library_path = library_path(context);
  settings.cache = machine_ld_cache(context);
  settings.system_dirs = system_library_dirs(context.machine_root);
  // Every soname the loader could be asked for: what its folders and cache hold.
  std::vector<std::string> names;
  for (const auto& [soname, path] : settings.cache) names.push_back(soname);
  for (const std::string& entry : settings.library_path) {
    if (!entry.empty())
      for (std::string& name : context.fs.list_dir(entry)) names.push_back(std::move(name));
  }
  LoaderModel loader(settings);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const auto& [base, component] : kToolkitLibraries) {
    std::string prefix = std::string(base) + ".so";
    bool has = std::any_of(own.begin(), own.end(), [&](const std::string& name) { return starts_with(name, prefix); });
    if (has) continue;
    for (const std::string& soname : names) {
      // libnvrtc.so.13: the name a program asks for (a major, no minor)
      if (!starts_with(soname, prefix + ".") || !parse_decimal(soname.substr(prefix.size() + 1))) continue;
      auto path = loader.find(soname, this_machine());
      if (!path) continue;
      auto home = toolkit_of_library_dir(context.fs, path->parent_path());
      if (!home) continue;
      auto version = shipped_toolkit_version(context.fs, *home);
      if (!version || version->major() != toolkit.version->major()) continue;
      found.foreign.push_back({soname, std::string(component), *path, home, version});
    }
  }
  return found;
}

}  // namespace cudaenv
