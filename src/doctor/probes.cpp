// run_probes and the probes of the toolchain side (the selected toolkit, nvcc on PATH,
// CUDA_HOME, LD_LIBRARY_PATH, the host compiler, the arch list) and of Python, torch and
// DeepSpeed, asked by running the interpreter, never by importing them here.
#include "doctor/probes.h"

#include <algorithm>
#include <cctype>
#include <future>

#include "core/program.h"
#include "core/toolkits.h"
#include "core/version_detect.h"
#include "doctor/checks.h"
#include "doctor/host_compiler.h"
#include "doctor/parsers.h"
#include "util/process.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

constexpr std::chrono::seconds kProgramTimeout{10};

// Paths are compared after resolving links, so /usr/local/cuda and cuda-12.4 are one toolkit.
fs::path real(const fs::path& path) {
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(path, ec);
  return ec ? path.lexically_normal() : resolved;
}

std::optional<Version> nvcc_version(const fs::path& nvcc, const EnvMap& env) {
  auto output = run_capture({nvcc.string(), "--version"}, kProgramTimeout, &env);
  if (!output || output->exit_code != 0) return std::nullopt;
  return version_from_nvcc_banner(output->out);
}

const Selection* selected(const ProbeContext& context) { return std::get_if<Selection>(&context.selection); }

ToolkitProbe probe_toolkit(const ProbeContext& context) {
  ToolkitProbe probe;
  std::vector<Toolkit> toolkits = list_toolkits(context.fs, context.layout);
  for (const Toolkit& toolkit : toolkits) probe.installed.push_back(toolkit.name);
  if (const auto* failed = std::get_if<FailedSelection>(&context.selection)) {
    probe.error = failed->error.message;
    if (failed->request) {
      probe.request = failed->request->value;
      probe.origin = failed->request->origin();
    }
    return probe;
  }
  const Selection& selection = *selected(context);
  probe.found = true;
  probe.request = selection.request.value;
  probe.origin = selection.request.origin();
  probe.name = selection.toolkit.name;
  probe.home = real(selection.toolkit.home);
  probe.version = selection.toolkit.version ? selection.toolkit.version : shipped_toolkit_version(context.fs, probe.home);
  return probe;
}

NvccProbe probe_nvcc(const ProbeContext& context) {
  NvccProbe probe;
  probe.cudacxx = env_get(context.env, "CUDACXX");
  probe.path = find_on_path(context.fs, context.env, "nvcc", {});
  fs::path shims = real(context.layout.shims_dir());
  std::vector<std::string> entries = split(env_get(context.env, "PATH").value_or(""), ':');
  probe.shims_on_path = std::any_of(entries.begin(), entries.end(),
                                    [&](const std::string& entry) { return !entry.empty() && real(entry) == shims; });
  if (!probe.path) return probe;
  probe.via_shim = real(probe.path->parent_path()) == shims;
  if (!probe.via_shim) {
    probe.resolved = real(*probe.path);
    // A toolkit's own bin can go; /usr/bin (a distribution's nvcc) holds everything else too.
    fs::path folder = real(probe.path->parent_path());
    fs::path prefix = folder.parent_path();
    if (prefix != "/" && prefix != "/usr" && prefix != "/usr/local") {
      std::erase_if(entries, [&](const std::string& entry) { return entry.empty() || real(entry) == folder; });
      probe.path_without = join(entries, ":");
    }
  } else if (const Selection* selection = selected(context)) {
    // What `cudaenv which nvcc` answers: the selected toolkit's, or the system one.
    auto target = program_for_selection(context.fs, context.env, context.layout, *selection, "nvcc");
    if (target) probe.resolved = real(*target);
  }
  if (probe.resolved) probe.version = nvcc_version(*probe.resolved, context.env);
  return probe;
}

CudaHomeProbe probe_cuda_home(const ProbeContext& context, const NvccProbe& nvcc) {
  CudaHomeProbe probe;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    if (auto value = env_get(context.env, variable)) {
      probe.variable = variable;
      probe.home = real(*value);
      break;
    }
  }
  if (!probe.home) return probe;
  // Usually the nvcc on PATH: its banner was read already.
  auto version_at = [&](const fs::path& home) {
    fs::path nvcc_path = home / "bin" / "nvcc";
    if (!context.fs.is_executable(nvcc_path)) return std::optional<Version>();
    return nvcc.resolved == real(nvcc_path) ? nvcc.version : nvcc_version(nvcc_path, context.env);
  };
  probe.has_nvcc = context.fs.is_executable(*probe.home / "bin" / "nvcc");
  probe.version = version_at(*probe.home);
  auto cuda_path = env_get(context.env, "CUDA_PATH");
  if (probe.variable == "CUDA_HOME" && cuda_path && real(*cuda_path) != *probe.home) {
    probe.cuda_path = real(*cuda_path);
    probe.cuda_path_version = version_at(*probe.cuda_path);
  }
  return probe;
}

// cuDNN 9's sub-libraries in `dir` and their release: a file named libcudnn_cnn.so.9.1.0 (a
// redist archive's) says it; else the toolkit's header does.
void probe_cudnn_parts(const FileSystemView& fs, const fs::path& dir, LibraryPathEntry& entry) {
  for (const std::string& name : fs.list_dir(dir)) {
    size_t so = name.find(".so.9");
    if (!starts_with(name, "libcudnn_") || so == std::string::npos) continue;
    entry.has_cudnn_parts = true;
    auto version = parse_version(name.substr(so + 4));
    if (version && version->parts.size() == 3) entry.cudnn = version;
  }
  if (entry.has_cudnn_parts && !entry.cudnn && entry.toolkit_home) {
    if (auto text = fs.read_file(*entry.toolkit_home / "include" / "cudnn_version.h")) entry.cudnn = cudnn_header_version(*text);
  }
}

std::vector<LibraryPathEntry> probe_library_path(const ProbeContext& context) {
  std::vector<LibraryPathEntry> entries;
  auto value = env_get(context.env, "LD_LIBRARY_PATH");
  if (!value) return entries;
  for (const std::string& entry : split(*value, ':')) {
    if (entry.empty()) continue;
    LibraryPathEntry probe;
    probe.entry = entry;
    probe.toolkit_home = toolkit_of_library_dir(context.fs, real(entry));
    if (probe.toolkit_home) probe.toolkit_version = shipped_toolkit_version(context.fs, *probe.toolkit_home);
    probe_cudnn_parts(context.fs, entry, probe);
    entries.push_back(std::move(probe));
  }
  return entries;
}

// What nvcc runs: NVCC_CCBIN, else CC (as torch passes it), else the project's host_compiler (the
// shims give it to nvcc), else gcc; and what the build toolkit's crt/host_config.h accepts.
CompilerProbe probe_compiler(const ProbeContext& context, const std::optional<fs::path>& build_home) {
  CompilerProbe probe;
  probe.command = "gcc";
  const Selection* selection = selected(context);
  for (const char* variable : {"NVCC_CCBIN", "CC"}) {
    if (auto value = env_get(context.env, variable)) {
      probe.variable = variable;
      // "ccache gcc-11" runs gcc-11; the last word is the compiler.
      std::vector<std::string> words = split(std::string(trim(*value)), ' ');
      probe.command = words.back();
      break;
    }
  }
  if (probe.variable.empty() && selection && selection->project && selection->project->host_compiler) {
    probe.variable = "[cuda] host_compiler";
    probe.command = *selection->project->host_compiler;
  }
  HostCompiler compiler = identify_compiler(context.fs, context.env, probe.command);
  probe.path = compiler.path;
  probe.kind = compiler.kind;
  probe.version = compiler.version;
  probe.other_gcc_majors = installed_gcc_majors(context.fs, context.env);
  if (build_home) probe.limits = read_host_config(context.fs, *build_home);
  return probe;
}

ToolkitLibrariesProbe probe_toolkit_libraries(const ProbeContext& context, const std::optional<fs::path>& home) {
  ToolkitLibrariesProbe probe;
  if (!home) return probe;
  if (auto text = context.fs.read_file(*home / "include" / "cudnn_version.h")) probe.cudnn = cudnn_header_version(*text);
  if (auto text = context.fs.read_file(*home / "include" / "nccl.h")) probe.nccl = nccl_header_version(*text);
  return probe;
}

ArchListProbe probe_arch_list(const ProbeContext& context) {
  ArchListProbe probe;
  if (auto value = env_get(context.env, "TORCH_CUDA_ARCH_LIST")) {
    probe.source = "TORCH_CUDA_ARCH_LIST";
    std::string text = *value;
    std::replace(text.begin(), text.end(), ' ', ';');
    for (const std::string& entry : split(text, ';')) {
      if (!entry.empty()) probe.entries.push_back(entry);
    }
  } else if (const Selection* selection = selected(context); selection && selection->project) {
    probe.source = selection->project->path.string();
    probe.entries = selection->project->arch;
  }
  return probe;
}

std::optional<fs::path> find_python(const FileSystemView& fs, const EnvMap& env, const std::optional<fs::path>& given) {
  if (given) {
    if (given->has_parent_path()) return fs.is_executable(*given) ? given : std::nullopt;
    return find_on_path(fs, env, given->string(), {});
  }
  for (const char* name : {"python3", "python"}) {
    if (auto path = find_on_path(fs, env, name, {})) return path;
  }
  return std::nullopt;
}

// The interpreter (--python, else python3/python on PATH) asked about torch and DeepSpeed.
PythonProbe probe_python(const FileSystemView& fs, const EnvMap& env, const std::optional<fs::path>& python,
                         std::chrono::milliseconds timeout) {
  PythonProbe probe;
  probe.limit = timeout;
  probe.interpreter = find_python(fs, env, python);
  if (!probe.interpreter) {
    if (python) {
      probe.interpreter = python;
      probe.problem = "not found";
    }
    return probe;
  }
  auto started = std::chrono::steady_clock::now();
  auto output = run_capture({probe.interpreter->string(), "-c", kPythonProbeScript}, timeout, &env);
  probe.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  if (!output) {
    // run_capture stops a program only at the deadline or for printing too much.
    probe.timed_out = probe.took >= timeout;
    probe.problem = probe.timed_out ? "no answer within " + seconds_text(std::chrono::duration<double>(timeout).count()) +
                                          " (importing torch reads hundreds of MB)"
                                    : output.error().message;
  } else if (!read_python_answer(output->out, probe)) {
    // A traceback ends with the line that says what went wrong.
    std::string said(trim(output->err));
    if (size_t last_line = said.rfind('\n'); last_line != std::string::npos) said.erase(0, last_line + 1);
    probe.problem = "exit status " + std::to_string(output->exit_code) + (said.empty() ? "" : ": " + said);
  }
  return probe;
}

// cuda.pathfinder's order: each layout across all of site-packages, CUDA 13's unified one first.
CudaWheelsProbe probe_cuda_wheels(const ProbeContext& context, const std::vector<fs::path>& nvidia_dirs) {
  CudaWheelsProbe probe;
  auto first = [&](std::initializer_list<const char*> layouts, auto&& found) -> std::optional<fs::path> {
    for (const char* layout : layouts) {
      for (const fs::path& dir : nvidia_dirs) {
        if (found(dir / layout)) return dir / layout;
      }
    }
    return std::nullopt;
  };
  probe.nvcc = first({"cu13/bin/nvcc", "cuda_nvcc/bin/nvcc"}, [&](const fs::path& p) { return context.fs.is_executable(p); });
  if (probe.nvcc) probe.nvcc_version = nvcc_version(*probe.nvcc, context.env);
  probe.library_dir = first({"cu13/lib", "cuda_runtime/lib"}, [&](const fs::path& dir) {
    for (const std::string& name : context.fs.list_dir(dir)) {
      if (starts_with(name, "libcudart.so.")) return true;
    }
    return false;
  });
  return probe;
}

WslProbe probe_wsl(const ProbeContext& context) {
  WslProbe probe;
  if (auto text = context.fs.read_file(context.machine_root / "proc/sys/kernel/osrelease")) probe.kernel = trim(*text);
  std::string lower = probe.kernel;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  probe.wsl = lower.find("microsoft") != std::string::npos || lower.find("wsl") != std::string::npos;
  probe.driver_dir = context.machine_root / "usr/lib/wsl/lib";
  probe.has_libcuda = context.fs.kind(probe.driver_dir / "libcuda.so.1") == EntryKind::file;
  probe.nvidia_smi = find_on_path(context.fs, context.env, "nvidia-smi", {});
  return probe;
}

}  // namespace

std::optional<fs::path> toolkit_of_library_dir(const FileSystemView& fs, const fs::path& dir) {
  std::vector<fs::path> homes;
  if (dir.filename() == "lib" || dir.filename() == "lib64") homes.push_back(dir.parent_path());
  if (dir.filename() == "lib" && dir.parent_path().parent_path().filename() == "targets") {
    homes.push_back(dir.parent_path().parent_path().parent_path());
  }
  for (const fs::path& home : homes) {
    if (fs.is_executable(home / "bin" / "nvcc") || fs.kind(home / "version.json") == EntryKind::file) return home;
  }
  return std::nullopt;
}

Probes run_probes(const ProbeContext& context) {
  // Python (importing torch takes seconds) and the driver (cuInit too, on a big machine) run
  // while everything else is probed.
  auto python = std::async(std::launch::async,
                           [&context] { return probe_python(context.fs, context.env, context.python, context.timeout); });
  auto driver = std::async(std::launch::async,
                           [&context] { return probe_driver(context.fs, context.env, context.timeout, context.machine_root); });
  Probes probes;
  probes.toolkit = probe_toolkit(context);
  probes.nvcc = probe_nvcc(context);
  probes.cuda_home = probe_cuda_home(context, probes.nvcc);
  probes.toolkit_libraries = probe_toolkit_libraries(context, build_toolkit(probes).home);
  probes.library_path = probe_library_path(context);
  probes.compiler = probe_compiler(context, build_toolkit(probes).home);
  probes.arch_list = probe_arch_list(context);
  probes.deepspeed_skip_check = env_get(context.env, "DS_SKIP_CUDA_CHECK").value_or("") == "1";
  probes.wsl = probe_wsl(context);
  probes.driver = driver.get();
  if (context.stand_in_driver) context.stand_in_driver(probes.driver);
  probes.python = python.get();
  probes.cuda_wheels = probe_cuda_wheels(context, probes.python.nvidia_dirs);
  probes.extensions = probe_extensions(context, probes);
  probes.toolkit_libraries_found = probe_toolkit_libraries_found(context, probes.toolkit);
  return probes;
}

}  // namespace cudaenv
