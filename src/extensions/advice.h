#pragma once
// How to get an extension that fits a torch: from the PyTorch index beside it, as the exact
// prebuilt wheel (only once the server said it has it), from PyPI, or by a source build with the
// toolkit of torch's CUDA, its GPUs' archs and MAX_JOBS sized from memory. One answer, with one
// line of why, shared by `cudaenv torch --with` and doctor's fixes. Pure: whether a wheel exists
// is asked of a WheelLookup beforehand (wanted_wheels), and advise() reads its answers.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/version.h"
#include "extensions/catalog.h"
#include "util/result.h"

namespace cudaenv {

// What an extension must fit: the torch it goes with and the machine it is built on.
struct ExtensionTarget {
  Version torch;                                  // the public release: 2.15.0
  std::optional<Version> cuda;                    // torch's CUDA; none for a CPU build
  std::string index_url;                          // the PyTorch index of that build: https://download.pytorch.org/whl/cu130
  bool cxx11_abi = true;                          // torch's _GLIBCXX_USE_CXX11_ABI
  std::string python_tag;                         // cp312; empty where no interpreter said
  std::string platform;                           // linux_x86_64
  std::vector<ComputeCapability> archs;           // the GPUs it must have kernels for
  std::string archs_source;                       // "--arch", "GPUs here"
  std::optional<std::uint64_t> memory_available;  // bytes
  unsigned cores = 1;
  bool toolkit_installed = false;  // a toolkit of torch's CUDA is installed: the build needs no install first
  std::string mirror;              // CUDAENV_EXTENSION_WHEELS's base, or empty
  bool reinstall = false;          // it is installed, and broken (doctor): pip must replace it
};

// "flash-attn" or "flash-attn==2.8.3", as --with takes it.
struct ExtensionRequest {
  std::string name;  // as the catalog names it
  std::optional<std::string> version;
};

// "flash-attn,xformers==0.0.35" -> the requests; a name the catalog lacks is a usage error.
Result<std::vector<ExtensionRequest>> parse_extension_requests(const ExtensionCatalog& catalog, std::string_view list);

enum class WheelPresence { present, absent, unknown };
struct WheelAnswer {
  WheelPresence presence = WheelPresence::unknown;
  std::string why;  // for unknown: what could not be reached, and why
};
using WheelAnswers = std::map<std::string, WheelAnswer>;  // by URL

// The effect: asks servers whether they have these files (cudaenv-fetch, a cache, a test's map).
class WheelLookup {
 public:
  virtual ~WheelLookup() = default;
  virtual WheelAnswers check(const std::vector<std::string>& urls) const = 0;
};

// The URL of the prebuilt wheel of `version` that fits `target`, the mirror's where one is set;
// none where the target lacks what the name needs (a CUDA build, a CPython tag).
std::optional<std::string> fitting_wheel_url(const ExtensionEntry& entry, const std::string& version,
                                             const ExtensionTarget& target);

// A source build under the toolkit of torch's CUDA.
struct BuildPlan {
  Version cuda;
  bool install_toolkit = false;                          // cudaenv install X.Y first
  std::vector<std::pair<std::string, std::string>> env;  // MAX_JOBS, TORCH_CUDA_ARCH_LIST, the package's own
  std::string requirement;                               // flash-attn==2.8.3, git+https://...
  std::vector<std::string> options;                      // --no-build-isolation and the package's
};

enum class AdviceKind { pytorch_index, wheel, pypi, build, none };

struct ExtensionAdvice {
  std::string package;
  AdviceKind kind = AdviceKind::none;
  std::string requirement;                // what joins torch's install command (not for a build)
  std::optional<BuildPlan> build;         // kind build
  std::string why;                        // one line
  std::vector<std::string> unreachable;   // "URL: why" for wheels that could not be checked
  std::optional<Version> torch_required;  // a PyPI release that requires another torch
};

// The URLs advise() reads answers for: the fitting wheel of each request of the wheels kind.
std::vector<std::string> wanted_wheels(const ExtensionCatalog& catalog, const std::vector<ExtensionRequest>& requests,
                                       const ExtensionTarget& target);

// The torch a request's PyPI release requires, where the catalog says (vLLM's exact pin).
std::optional<Version> required_torch(const ExtensionCatalog& catalog, const ExtensionRequest& request);

ExtensionAdvice advise(const ExtensionEntry& entry, const ExtensionRequest& request, const ExtensionTarget& target,
                       const WheelAnswers& answers);

// What the catalog says of `name`, or, for a package it does not know, a source build of the
// named release with a default memory per job.
ExtensionEntry entry_for(const ExtensionCatalog& catalog, const std::string& name);

// MAX_JOBS for a package whose compile jobs take `job_memory_gb` each: available memory over
// that, at least 1, at most the cores (1 where memory is unknown).
unsigned max_jobs(double job_memory_gb, const std::optional<std::uint64_t>& memory_available, unsigned cores);

// "pip install --no-build-isolation ..." run under `cudaenv exec --cuda X.Y`, with `pip` the
// installer's own words ("pip", "uv pip", "/venv/bin/python -m pip").
std::string render_build(const std::string& pip, const BuildPlan& build);

// One command: torch's pins, every extension that installs as a requirement (index, wheel URL,
// PyPI) and then each source build, joined by &&. PyPI joins as an index where an extension
// comes from there (its dependencies do): the PyTorch index then comes first as an extra one.
std::string render_with(const std::string& pip, const std::vector<std::string>& torch_pins, const std::string& index_url,
                        const std::vector<ExtensionAdvice>& advice);

// The same advice as a fix for an installed package: pip replaces it and leaves torch and the
// other packages as they are (--force-reinstall --no-deps). Empty for kind none.
std::string render_fix(const std::string& pip, const std::string& index_url, const ExtensionAdvice& advice);

}  // namespace cudaenv
