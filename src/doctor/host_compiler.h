#pragma once
// The host compiler nvcc uses: which ones a toolkit accepts (its crt/host_config.h, else the
// shipped facts), what a named compiler is, and the one verdict on the pair that `use
// --host-compiler`, `exec`, `env`, the prompt hook and doctor all give (docs/host-compiler.md).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data_dir.h"
#include "core/selection.h"
#include "core/version.h"
#include "util/environment.h"
#include "util/file_system.h"
#include "util/result.h"

namespace cudaenv {

struct CudaFacts;

struct HostCompilerLimits {
  std::optional<int> gcc_max;    // the newest gcc major nvcc accepts
  std::optional<int> clang_max;  // the newest clang major
  std::string source;            // the crt/host_config.h read, or "cuda-facts.toml"

  std::optional<int> max_for(std::string_view kind) const;
};

// host_config.h's #errors: "gcc versions later than 15 are not supported" and "clang version must
// be less than 21" (Intel's, IBM's and the HOS and Grace clangs' are other lines).
HostCompilerLimits parse_host_config(std::string_view header);
// The toolkit's own include/crt/host_config.h (or targets/*/include/crt/), as nvcc reads it.
std::optional<HostCompilerLimits> read_host_config(const FileSystemView& fs, const fs::path& home);
// The shipped facts for CUDA `cuda`, where the toolkit has no header to read.
HostCompilerLimits facts_limits(const CudaFacts& facts, const Version& cuda);

struct HostCompiler {
  std::string named;  // as written: "gcc-12", "/opt/gcc/bin/gcc"
  std::optional<fs::path> path;
  std::optional<std::string> cxx;  // its C++ driver's name: "g++-12" (core/toolkit_env.h)
  std::optional<fs::path> cxx_path;
  std::string kind = "unknown";  // gcc, clang or unknown
  std::optional<Version> version;
};

// Found on PATH (or at its path), its C++ driver beside it, and asked its --version.
HostCompiler identify_compiler(const FileSystemView& fs, const EnvMap& env, const std::string& named);
// The gcc-N on PATH, ascending.
std::vector<int> installed_gcc_majors(const FileSystemView& fs, const EnvMap& env);

// The command that makes a project build with gcc `major`: `cudaenv use --host-compiler gcc-N`,
// after `sudo apt install gcc-N g++-N` when no gcc-N is on PATH.
std::string host_compiler_fix(int major, const std::vector<int>& installed);
// The newest gcc-N on PATH that `max` admits, else `max` itself.
int best_gcc(int max, const std::vector<int>& installed);

// `compiler` as nvcc's host compiler under `limits` (the toolkit named `toolkit`): an error
// naming the compiler and the newest one the toolkit accepts, where it is missing, has no C++
// driver beside it, or is newer than the toolkit takes.
Status check_host_compiler(const HostCompiler& compiler, const HostCompilerLimits& limits, const std::string& toolkit,
                           const std::vector<int>& installed);

// `compiler` against `toolkit`, as `pin --host-compiler` asks: missing, without its C++ driver,
// or newer than the toolkit's crt/host_config.h (else the shipped facts) accepts; without a
// toolkit, only the first two.
Status check_toolkit_compiler(const FileSystemView& fs, const EnvMap& env, const DataFiles& data, const std::string& compiler,
                              const Toolkit* toolkit);
// The project's [cuda] host_compiler against the selected toolkit, the error naming the file;
// ok where none is set. For `exec`, `env` and the prompt hook.
Status check_selection_compiler(const FileSystemView& fs, const EnvMap& env, const DataFiles& data, const Selection& selection);

}  // namespace cudaenv
