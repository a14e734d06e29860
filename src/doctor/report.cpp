#include "doctor/report.h"

#include <nlohmann/json.hpp>

#include "extensions/fatbin.h"
#include "util/json_reader.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

using json = nlohmann::ordered_json;

std::string or_none(const std::optional<Version>& version) { return version ? version->str() : "unknown"; }

class Writer {
 public:
  explicit Writer(bool colour) : colour_(colour) {}

  // What probes and checks report quotes drivers, paths and a Python's answers: shown escaped.
  void section(const std::string& title) { out_ += (out_.empty() ? "" : "\n") + paint("1", terminal_safe(title)) + "\n"; }
  void line(const std::string& label, const std::string& value) {
    out_ += "  " + terminal_safe(label) + ": " + terminal_safe(value) + "\n";
  }

  void finding(const Finding& finding) {
    static const char* const kMarks[] = {"✓", "⚠", "✗", "ℹ"};  // in Severity's order
    static const char* const kColours[] = {"32", "33", "31", "34"};
    int index = static_cast<int>(finding.severity);
    out_ += "  " + paint(kColours[index], kMarks[index]) + " " + terminal_safe(finding.title) + "\n";
    if (!finding.explanation.empty()) {
      for (const std::string& line : split(finding.explanation, '\n')) out_ += "      " + terminal_safe(line) + "\n";
    }
    for (size_t i = 0; i < finding.fixes.size(); ++i) {
      out_ += std::string("      ") + (i ? "or:  " : "fix: ") + paint("36", terminal_safe(finding.fixes[i])) + "\n";
    }
  }

  void text(const std::string& text) { out_ += text; }
  const std::string& str() const { return out_; }

 private:
  std::string paint(const char* code, const std::string& text) const {
    return colour_ ? "\033[" + std::string(code) + "m" + text + "\033[0m" : text;
  }

  bool colour_;
  std::string out_;
};

void write_driver(Writer& w, const DriverProbe& driver) {
  w.section("Driver");
  if (driver.target) {
    w.line("target", driver.target->name + " (" + driver.target->origin + "): " + driver.target->file.string());
    w.line("this machine", driver.target->machine);
  } else {
    w.line("libcuda.so.1", driver.loaded ? "loaded" + (driver.library.empty() ? "" : " from " + driver.library) : "not loaded");
  }
  if (!driver.problem.empty()) w.line("problem", driver.problem);
  w.line("driver version", driver.version ? driver.version->text + " (" + driver.version_source + ")" : "unknown");
  if (driver.overridden()) w.line("in place of", driver.replaced);
  w.line("runs CUDA up to", driver.cuda ? driver.cuda->str() : "unknown");
  for (size_t i = 0; i < driver.gpus.size(); ++i) {
    w.line("GPU " + std::to_string(i), driver.gpus[i].name + " (compute capability " + driver.gpus[i].capability.str() + ")");
  }
}

void write_wsl(Writer& w, const WslProbe& wsl) {
  if (!wsl.wsl) return;
  w.line("WSL2",
         wsl.kernel + "; " + (wsl.driver_dir / "libcuda.so.1").string() + (wsl.has_libcuda ? " is there" : " is missing"));
}

void write_toolkit(Writer& w, const Probes& probes) {
  w.section("Toolkit");
  const ToolkitProbe& toolkit = probes.toolkit;
  if (toolkit.found) {
    std::string version =
        toolkit.version && toolkit.version->str() != toolkit.name ? " (CUDA " + toolkit.version->str() + ")" : "";
    w.line("active", toolkit.name + version + " at " + toolkit.home.string() + " (" + toolkit.origin + ")");
  } else {
    w.line("active", "none: " + toolkit.error);
  }
  w.line("installed", toolkit.installed.empty() ? "none" : join(toolkit.installed, ", "));
  const NvccProbe& nvcc = probes.nvcc;
  std::string on_path = nvcc.path ? nvcc.path->string() : "none";
  if (nvcc.via_shim) on_path += " (cudaenv shim) -> " + (nvcc.resolved ? nvcc.resolved->string() : "nothing");
  if (nvcc.path) on_path += ", release " + or_none(nvcc.version);
  w.line("nvcc on PATH", on_path);
  const CudaHomeProbe& home = probes.cuda_home;
  w.line("CUDA_HOME/CUDA_PATH",
         home.home ? home.variable + "=" + home.home->string() + ", nvcc " + (home.has_nvcc ? or_none(home.version) : "missing")
                   : "unset");
  if (home.cuda_path) w.line("CUDA_PATH", home.cuda_path->string() + ", nvcc " + or_none(home.cuda_path_version));
  const ToolkitLibrariesProbe& libraries = probes.toolkit_libraries;
  if (libraries.cudnn || libraries.nccl) {
    w.line("toolkit carries", "cuDNN " + or_none(libraries.cudnn) + ", NCCL " + or_none(libraries.nccl));
  }
  std::vector<std::string> entries;
  for (const LibraryPathEntry& entry : probes.library_path) {
    std::string notes = entry.toolkit_home ? " [CUDA " + or_none(entry.toolkit_version) + "]" : "";
    if (entry.has_cudnn_parts) notes += " [cuDNN " + or_none(entry.cudnn) + "]";
    entries.push_back(entry.entry + notes);
  }
  w.line("LD_LIBRARY_PATH", entries.empty() ? "unset" : join(entries, ":"));
  if (!probes.arch_list.entries.empty())
    w.line("arch list", join(probes.arch_list.entries, ";") + " (" + probes.arch_list.source + ")");
}

void write_cuda_wheels(Writer& w, const CudaWheelsProbe& wheels) {
  if (wheels.nvcc) w.line("wheels' nvcc", wheels.nvcc->string() + ", release " + or_none(wheels.nvcc_version));
  if (wheels.library_dir) w.line("wheels' libraries", wheels.library_dir->string());
}

void write_python(Writer& w, const PythonProbe& python) {
  w.section("Python");
  w.line("interpreter", python.interpreter ? python.interpreter->string() : "none found");
  if (!python.problem.empty()) w.line("problem", python.problem);
  if (!python.has_torch) {
    w.line("torch", "not installed");
  } else {
    w.line("torch", python.torch_version + ", CUDA " + (python.torch_cuda ? python.torch_cuda->str() : "none (CPU build)") +
                        ", GPU available: " + (python.cuda_available ? "yes" : "no"));
    w.line("torch archs", python.arch_list.empty() ? "none" : join(python.arch_list, " "));
    w.line("torch carries", "CUDA runtime " + or_none(python.cuda_runtime) + ", cuDNN " + or_none(python.cudnn) + ", NCCL " +
                                or_none(python.nccl));
    std::vector<std::string> wheels;
    for (const PythonPackage& wheel : python.nvidia_wheels) wheels.push_back(wheel.name + " " + wheel.version);
    if (!wheels.empty()) w.line("NVIDIA wheels", join(wheels, ", "));
  }
  w.line("DeepSpeed", python.deepspeed_version.value_or("not installed"));
  if (python.interpreter && python.problem != "not found") {
    w.line("probe took", seconds_text(std::chrono::duration<double>(python.took).count()) + " (limit " +
                             seconds_text(std::chrono::duration<double>(python.limit).count()) + ", --timeout)");
  }
}

void write_compiler(Writer& w, const CompilerProbe& compiler) {
  w.section("Host compiler");
  std::string named = compiler.variable.empty() ? compiler.command + " (default)" : compiler.variable + "=" + compiler.command;
  w.line("compiler", named + " -> " + (compiler.path ? compiler.path->string() : "not found"));
  if (compiler.path) w.line("version", compiler.kind + " " + or_none(compiler.version));
  std::vector<std::string> others;
  for (int major : compiler.other_gcc_majors) others.push_back("gcc-" + std::to_string(major));
  if (!others.empty()) w.line("also on PATH", join(others, ", "));
}

void write_extensions(Writer& w, const ExtensionScan& scan) {
  if (!scan.ran && scan.skipped.empty()) return;
  w.section("Compiled extensions");
  if (!scan.ran) {
    w.line("not scanned", scan.skipped);
    return;
  }
  w.line("modules", std::to_string(scan.module_count) + " in " + std::to_string(scan.packages.size()) + " packages");
  std::vector<std::string> archs;
  for (const ComputeCapability& arch : scan.archs) archs.push_back(sm_name(arch));
  w.line("kernels checked for",
         archs.empty() ? "nothing (no GPU, no project arch)" : join(archs, ", ") + " (" + scan.archs_source + ")");
  if (scan.torch_cxx11_abi)
    w.line("torch C++ ABI", *scan.torch_cxx11_abi ? "new (_GLIBCXX_USE_CXX11_ABI=1)" : "old (_GLIBCXX_USE_CXX11_ABI=0)");
}

json optional_version(const std::optional<Version>& version) { return version ? json(version->str()) : json(nullptr); }
json optional_path(const std::optional<fs::path>& path) { return path ? json(path->string()) : json(nullptr); }

json arch_names(const std::vector<ArchEntry>& entries) {
  json names = json::array();
  for (const ArchEntry& entry : entries) names.push_back(nvcc_arch_name(entry));
  return names;
}

json capabilities_json(const std::vector<ComputeCapability>& capabilities) {
  json list = json::array();
  for (const ComputeCapability& capability : capabilities) list.push_back(capability.str());
  return list;
}

json module_json(const ExtensionModule& module) {
  json libraries = json::array();
  for (const MissingLibrary& library : module.missing_libraries) libraries.push_back(library.soname);
  json symbols = nullptr;
  if (const auto& missing = module.missing_symbols) {
    symbols = {{"example", missing->example}, {"count", missing->count}, {"other_abi", missing->other_abi}};
  }
  json kernels = nullptr;
  if (const auto& coverage = module.kernels) {
    kernels = {{"sass", arch_names(coverage->sass)},
               {"ptx", arch_names(coverage->ptx)},
               {"uncovered", capabilities_json(coverage->uncovered)}};
  }
  return {{"file", module.file.string()}, {"missing_symbols", symbols}, {"missing_libraries", libraries}, {"kernels", kernels}};
}

// What the extension scan found, for scripts and for the e2e suite's comparison with `import`.
json extensions_json(const ExtensionScan& scan) {
  json packages = json::array();
  for (const ExtensionPackage& package : scan.packages) {
    json modules = json::array();
    for (const ExtensionModule& module : package.modules) modules.push_back(module_json(module));
    packages.push_back({{"name", package.name},
                        {"version", package.version},
                        {"built_for_torch", package.built_for_torch ? json(*package.built_for_torch) : json(nullptr)},
                        {"built_for_cuda", package.built_for_cuda ? json(*package.built_for_cuda) : json(nullptr)},
                        {"modules", modules}});
  }
  return {{"ran", scan.ran},
          {"skipped", scan.skipped},
          {"module_count", scan.module_count},
          {"packages", packages},
          {"archs", capabilities_json(scan.archs)},
          {"archs_source", scan.archs_source},
          {"torch_cxx11_abi", scan.torch_cxx11_abi ? json(*scan.torch_cxx11_abi) : json(nullptr)},
          {"python_tag", scan.python_tag},
          {"platform", scan.platform},
          {"memory_available", scan.memory_available ? json(*scan.memory_available) : json(nullptr)},
          {"unreadable", scan.unreadable}};
}

json foreign_libraries_json(const ToolkitLibrariesFound& found) {
  json list = json::array();
  for (const ForeignLibrary& library : found.foreign) {
    list.push_back({{"soname", library.soname},
                    {"component", library.component},
                    {"found", library.found.string()},
                    {"toolkit_home", optional_path(library.toolkit_home)},
                    {"toolkit_version", optional_version(library.toolkit_version)}});
  }
  return {{"ran", found.ran}, {"foreign", list}};
}

json target_json(const std::optional<DriverTarget>& target) {
  if (!target) return nullptr;
  return {{"name", target->name},
          {"origin", target->origin},
          {"file", target->file.string()},
          {"machine", target->machine},
          {"matches", target->matches}};
}

json probes_json(const Probes& p) {
  json gpus = json::array();
  for (const Gpu& gpu : p.driver.gpus) gpus.push_back({{"name", gpu.name}, {"compute_capability", gpu.capability.str()}});
  json library_path = json::array();
  for (const LibraryPathEntry& entry : p.library_path) {
    library_path.push_back({{"entry", entry.entry},
                            {"toolkit_home", optional_path(entry.toolkit_home)},
                            {"toolkit_version", optional_version(entry.toolkit_version)},
                            {"cudnn_parts", entry.has_cudnn_parts},
                            {"cudnn", optional_version(entry.cudnn)}});
  }
  json wheels = json::array();
  for (const PythonPackage& wheel : p.python.nvidia_wheels) wheels.push_back({{"name", wheel.name}, {"version", wheel.version}});
  const ToolkitProbe& t = p.toolkit;
  return {
      {"driver",
       {{"loaded", p.driver.loaded},
        {"crashed", p.driver.crashed},
        {"problem", p.driver.problem},
        {"cuda", optional_version(p.driver.cuda)},
        {"version", p.driver.version ? json(p.driver.version->text) : json(nullptr)},
        {"version_source", p.driver.version_source},
        {"library", p.driver.library.empty() ? json(nullptr) : json(p.driver.library)},
        {"replaced", p.driver.overridden() ? json(p.driver.replaced) : json(nullptr)},
        {"gpus", gpus},
        {"target", target_json(p.driver.target)}}},
      {"toolkit",
       {{"found", t.found},
        {"request", t.request},
        {"origin", t.origin},
        {"name", t.name},
        {"version", optional_version(t.version)},
        {"home", t.found ? json(t.home.string()) : json(nullptr)},
        {"error", t.error},
        {"installed", t.installed}}},
      {"nvcc",
       {{"path", optional_path(p.nvcc.path)},
        {"resolved", optional_path(p.nvcc.resolved)},
        {"via_shim", p.nvcc.via_shim},
        {"version", optional_version(p.nvcc.version)},
        {"shims_on_path", p.nvcc.shims_on_path},
        {"cudacxx", p.nvcc.cudacxx ? json(*p.nvcc.cudacxx) : json(nullptr)}}},
      {"cuda_home",
       {{"variable", p.cuda_home.variable},
        {"home", optional_path(p.cuda_home.home)},
        {"has_nvcc", p.cuda_home.has_nvcc},
        {"version", optional_version(p.cuda_home.version)},
        {"cuda_path", optional_path(p.cuda_home.cuda_path)},
        {"cuda_path_version", optional_version(p.cuda_home.cuda_path_version)}}},
      {"toolkit_libraries",
       {{"cudnn", optional_version(p.toolkit_libraries.cudnn)}, {"nccl", optional_version(p.toolkit_libraries.nccl)}}},
      {"ld_library_path", library_path},
      {"python",
       {{"interpreter", optional_path(p.python.interpreter)},
        {"problem", p.python.problem},
        {"torch", p.python.has_torch ? json(p.python.torch_version) : json(nullptr)},
        {"torch_cuda", optional_version(p.python.torch_cuda)},
        {"cuda_available", p.python.cuda_available},
        {"arch_list", p.python.arch_list},
        {"cudnn", optional_version(p.python.cudnn)},
        {"nccl", optional_version(p.python.nccl)},
        {"cuda_runtime", optional_version(p.python.cuda_runtime)},
        {"nvidia_wheels", wheels},
        {"deepspeed", p.python.deepspeed_version ? json(*p.python.deepspeed_version) : json(nullptr)},
        {"took_ms", p.python.took.count()},
        {"timeout_ms", p.python.limit.count()},
        {"timed_out", p.python.timed_out}}},
      {"cuda_wheels",
       {{"nvcc", optional_path(p.cuda_wheels.nvcc)},
        {"nvcc_version", optional_version(p.cuda_wheels.nvcc_version)},
        {"library_dir", optional_path(p.cuda_wheels.library_dir)}}},
      {"wsl",
       {{"wsl", p.wsl.wsl},
        {"kernel", p.wsl.kernel},
        {"driver_dir", p.wsl.driver_dir.string()},
        {"has_libcuda", p.wsl.has_libcuda},
        {"nvidia_smi", optional_path(p.wsl.nvidia_smi)}}},
      {"compiler",
       {{"command", p.compiler.command},
        {"variable", p.compiler.variable},
        {"path", optional_path(p.compiler.path)},
        {"kind", p.compiler.kind},
        {"version", optional_version(p.compiler.version)},
        {"other_gcc_majors", p.compiler.other_gcc_majors}}},
      {"arch_list", {{"source", p.arch_list.source}, {"entries", p.arch_list.entries}}},
      {"deepspeed_skip_check", p.deepspeed_skip_check},
      {"extensions", extensions_json(p.extensions)},
      {"toolkit_libraries_found", foreign_libraries_json(p.toolkit_libraries_found)},
  };
}

}  // namespace

std::string summary_line(const std::vector<Finding>& findings) {
  int counts[4] = {0, 0, 0, 0};  // in Severity's order
  for (const Finding& finding : findings) ++counts[static_cast<int>(finding.severity)];
  auto plural = [](int n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); };
  std::string line = plural(counts[static_cast<int>(Severity::error)], "error") + ", " +
                     plural(counts[static_cast<int>(Severity::warning)], "warning") + ", " +
                     plural(counts[static_cast<int>(Severity::ok)], "check") + " passed";
  // Notes are neither passed nor failed: said apart, never counted as checks.
  if (int notes = counts[static_cast<int>(Severity::info)]) line += " (" + plural(notes, "note") + ")";
  return line;
}

std::string render_report(const Probes& probes, const std::vector<Finding>& findings, bool colour) {
  Writer w(colour);
  write_driver(w, probes.driver);
  write_wsl(w, probes.wsl);
  write_toolkit(w, probes);
  write_python(w, probes.python);
  write_cuda_wheels(w, probes.cuda_wheels);
  write_compiler(w, probes.compiler);
  write_extensions(w, probes.extensions);
  w.section("Findings");
  for (Severity severity : {Severity::error, Severity::warning, Severity::info, Severity::ok}) {
    for (const Finding& finding : findings) {
      if (finding.severity == severity) w.finding(finding);
    }
  }
  w.text("\n" + summary_line(findings) + "\n");
  return w.str();
}

std::string render_json(const Probes& probes, const std::vector<Finding>& findings) {
  json list = json::array();
  for (const Finding& f : findings) {
    list.push_back({{"id", f.id},
                    {"severity", severity_label(f.severity)},
                    {"title", f.title},
                    {"explanation", f.explanation},
                    {"fixes", f.fixes}});
  }
  json document = {{"probes", probes_json(probes)}, {"findings", list}, {"ok", !has_error(findings)}};
  return json_text(document);
}

}  // namespace cudaenv
