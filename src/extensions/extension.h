#pragma once
// What doctor learns of the compiled extensions the probed interpreter can import: filled in by
// extensions/scan (from their ELF files and .nv_fatbin sections, never loading them), read by
// doctor's extension check and by the advice `cudaenv torch --with` shares with it.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/version.h"

namespace cudaenv {

// The module needs C++ symbols from torch's libraries that the installed torch does not define.
struct MissingSymbols {
  std::string example;     // one of them, demangled: "c10::Error::Error(c10::SourceLocation, std::string)"
  std::size_t count = 0;   // how many are missing
  bool other_abi = false;  // torch defines them all under the other _GLIBCXX_USE_CXX11_ABI
};

// A shared library the loader would not find in torch's process.
struct MissingLibrary {
  std::string soname;  // libcudart.so.12
};

// What the module's .nv_fatbin holds, and the archs checked that nothing in it runs on.
struct KernelCoverage {
  std::vector<ArchEntry> sass;               // cubins: sm_80, sm_90a (suffix kept)
  std::vector<ArchEntry> ptx;                // PTX: compute_90 (ptx = true)
  std::vector<ComputeCapability> uncovered;  // checked archs with neither SASS nor PTX that runs there
};

struct ExtensionModule {
  std::filesystem::path file;  // .../flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so
  std::optional<MissingSymbols> missing_symbols;
  std::vector<MissingLibrary> missing_libraries;
  std::optional<KernelCoverage> kernels;  // none: the module carries no device code
};

struct ExtensionPackage {
  std::string name;                            // the dist-info's Name, as written: "flash_attn" / "flash-attn"
  std::string version;                         // the dist-info's Version: "2.8.3+cu12torch2.4cxx11abiTRUE"
  std::optional<std::string> built_for_torch;  // what the package says: Requires-Dist "torch==2.4.1", or "2.4" from its version
  std::optional<std::string> built_for_cuda;   // "12.4" from "+cu124" in its version, where it says
  std::vector<ExtensionModule> modules;        // only those linking torch's libraries or a CUDA library
};

struct ExtensionScan {
  bool ran = false;                               // false: no interpreter with torch to scan
  std::string skipped;                            // why it did not run, when it did not
  std::size_t module_count = 0;                   // extension modules inspected
  std::vector<ExtensionPackage> packages;         // every package with at least one inspected module
  std::vector<ComputeCapability> archs;           // what kernels were checked for
  std::string archs_source;                       // "GPUs here", "cuda.toml arch (/p/cuda.toml)", ...
  std::optional<bool> torch_cxx11_abi;            // torch._C._GLIBCXX_USE_CXX11_ABI
  std::string python_tag;                         // "cp312"
  std::string platform;                           // "linux_x86_64"
  std::optional<std::uint64_t> memory_available;  // bytes (MemAvailable), for MAX_JOBS
  std::vector<std::string> unreadable;            // "FILE: why" for files that could not be read (truncated ELF, ...)
};

}  // namespace cudaenv
