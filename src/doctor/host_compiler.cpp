#include "doctor/host_compiler.h"

#include <algorithm>

#include "core/toolkit_env.h"
#include "core/toolkits.h"
#include "core/version_detect.h"
#include "doctor/facts.h"
#include "doctor/parsers.h"
#include "util/process.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

constexpr std::chrono::seconds kCompilerTimeout{10};

// The number after `phrase` on an "#error" line of the header.
std::optional<int> number_after(std::string_view header, std::string_view phrase) {
  for (const std::string& line : split(std::string(header), '\n')) {
    std::string_view text = trim(line);
    if (!starts_with(text, "#error")) continue;
    size_t at = text.find(phrase);
    if (at == std::string_view::npos) continue;
    std::string_view rest = text.substr(at + phrase.size());
    auto number = parse_decimal(rest.substr(0, rest.find_first_not_of("0123456789")), 999);
    if (number) return static_cast<int>(*number);
  }
  return std::nullopt;
}

std::optional<fs::path> locate(const FileSystemView& fs, const EnvMap& env, const std::string& named) {
  if (named.find('/') != std::string::npos) {
    return fs.is_executable(named) ? std::optional<fs::path>(named) : std::nullopt;
  }
  return find_on_path(fs, env, named, {});
}

}  // namespace

std::optional<int> HostCompilerLimits::max_for(std::string_view kind) const {
  if (kind == "gcc") return gcc_max;
  if (kind == "clang") return clang_max;
  return std::nullopt;
}

HostCompilerLimits parse_host_config(std::string_view header) {
  HostCompilerLimits limits;
  limits.gcc_max = number_after(header, "unsupported GNU version! gcc versions later than ");
  if (auto below = number_after(header, "unsupported clang version! clang version must be less than ")) {
    limits.clang_max = *below - 1;
  }
  return limits;
}

std::optional<HostCompilerLimits> read_host_config(const FileSystemView& fs, const fs::path& home) {
  std::vector<fs::path> headers{home / "include/crt/host_config.h"};
  for (const std::string& target : fs.list_dir(home / "targets"))
    headers.push_back(home / "targets" / target / "include/crt/host_config.h");
  for (const fs::path& header : headers) {
    auto text = fs.read_file(header);
    if (!text) continue;
    HostCompilerLimits limits = parse_host_config(*text);
    if (!limits.gcc_max && !limits.clang_max) continue;
    limits.source = header.string();
    return limits;
  }
  return std::nullopt;
}

HostCompilerLimits facts_limits(const CudaFacts& facts, const Version& cuda) {
  HostCompilerLimits limits;
  if (const CudaRelease* release = facts.release(cuda)) {
    limits.gcc_max = release->gcc_max;
    limits.clang_max = release->clang_max;
  }
  limits.source = "cuda-facts.toml";
  return limits;
}

HostCompiler identify_compiler(const FileSystemView& fs, const EnvMap& env, const std::string& named) {
  HostCompiler compiler;
  compiler.named = named;
  compiler.path = locate(fs, env, named);
  if (auto drivers = compiler_drivers(named)) {
    compiler.cxx = drivers->cxx;
    compiler.cxx_path = locate(fs, env, drivers->cxx);
  }
  if (!compiler.path) return compiler;
  if (auto output = run_capture({compiler.path->string(), "--version"}, kCompilerTimeout, &env)) {
    CompilerBanner banner = parse_compiler_banner(output->out);
    compiler.kind = banner.kind;
    compiler.version = banner.version;
  }
  return compiler;
}

std::vector<int> installed_gcc_majors(const FileSystemView& fs, const EnvMap& env) {
  std::vector<int> majors;
  for (const std::string& dir : split(env_get(env, "PATH").value_or(""), ':')) {
    if (dir.empty()) continue;
    for (const std::string& name : fs.list_dir(dir)) {
      if (!starts_with(name, "gcc-") || name.size() == 4) continue;
      auto number = parse_decimal(name.substr(4), 999);
      if (!number) continue;
      int major = static_cast<int>(*number);
      if (fs.is_executable(fs::path(dir) / name) && std::find(majors.begin(), majors.end(), major) == majors.end()) {
        majors.push_back(major);
      }
    }
  }
  std::sort(majors.begin(), majors.end());
  return majors;
}

int best_gcc(int max, const std::vector<int>& installed) {
  int best = 0;
  for (int major : installed) {
    if (major <= max && major > best) best = major;
  }
  return best ? best : max;
}

std::string host_compiler_fix(int major, const std::vector<int>& installed) {
  std::string n = std::to_string(major);
  std::string use = "cudaenv use --host-compiler gcc-" + n;
  bool there = std::find(installed.begin(), installed.end(), major) != installed.end();
  return there ? use : "sudo apt install gcc-" + n + " g++-" + n + " && " + use;
}

Status check_host_compiler(const HostCompiler& compiler, const HostCompilerLimits& limits, const std::string& toolkit,
                           const std::vector<int>& installed) {
  std::optional<int> gcc = limits.gcc_max;
  std::string newest = gcc ? "; the newest gcc CUDA " + toolkit + " accepts is gcc " + std::to_string(*gcc) : "";
  std::string fix = gcc ? host_compiler_fix(best_gcc(*gcc, installed), installed) : "name a compiler on PATH";
  if (!compiler.path) {
    return make_error("host compiler " + compiler.named + " is not on PATH" + newest, "install it, or " + fix);
  }
  if (!compiler.cxx) {
    return make_error("host compiler " + compiler.named + " is no gcc, clang or cc: its C++ driver cannot be told" + newest, fix);
  }
  if (!compiler.cxx_path) {
    return make_error(
        "host compiler " + compiler.named + " has no C++ driver " + *compiler.cxx + " on PATH beside it" + newest,
        "install the C++ compiler too (sudo apt install " +
            (compiler.kind == "gcc" && compiler.version ? "g++-" + std::to_string(compiler.version->major()) : *compiler.cxx) +
            "), or " + fix);
  }
  std::optional<int> max = limits.max_for(compiler.kind);
  if (!compiler.version || !max || compiler.version->major() <= *max) return ok_status();
  std::string what = compiler.named + " (" + compiler.kind + " " + compiler.version->str() + ")";
  std::string hint = compiler.kind == "gcc" ? fix : "name a clang up to " + std::to_string(*max) + ", or a gcc";
  return make_error("CUDA " + toolkit + "'s nvcc does not accept " + what + ": it takes " + compiler.kind + " up to " +
                        std::to_string(*max) + " (" + limits.source + ")" + (compiler.kind == "gcc" ? "" : newest),
                    hint);
}

Status check_toolkit_compiler(const FileSystemView& fs, const EnvMap& env, const DataFiles& data, const std::string& compiler,
                              const Toolkit* toolkit) {
  HostCompiler found = identify_compiler(fs, env, compiler);
  std::optional<HostCompilerLimits> limits;
  if (toolkit) limits = read_host_config(fs, toolkit->home);
  if (toolkit && !limits) {
    auto cuda = toolkit_cuda_version(fs, *toolkit);
    CUDAENV_TRY_ASSIGN(auto facts, load_cuda_facts(data));
    limits = cuda ? facts_limits(facts, *cuda) : HostCompilerLimits{};
  }
  return check_host_compiler(found, limits.value_or(HostCompilerLimits{}), toolkit ? toolkit->name : "",
                             installed_gcc_majors(fs, env));
}

Status check_selection_compiler(const FileSystemView& fs, const EnvMap& env, const DataFiles& data, const Selection& selection) {
  if (!selection.project || !selection.project->host_compiler) return ok_status();
  Status checked = check_toolkit_compiler(fs, env, data, *selection.project->host_compiler, &selection.toolkit);
  if (checked) return checked;
  Error error = checked.take_error();
  error.message = selection.project->path.string() + ": " + error.message;
  return error;
}

}  // namespace cudaenv
