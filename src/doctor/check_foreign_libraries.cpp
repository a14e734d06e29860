// The selected toolkit lacks a CUDA library that programs then load from another toolkit of the
// same major (issue 36, 1h): the loader, and cuda.pathfinder after NVIDIA's wheels and
// CONDA_PREFIX, find it through LD_LIBRARY_PATH, ld.so.cache or the system folders.
#include "doctor/check_versions.h"
#include "util/strings.h"

namespace cudaenv::doctor_detail {

std::optional<Finding> check_foreign_libraries(const Probes& probes) {
  const ToolkitLibrariesFound& found = probes.toolkit_libraries_found;
  if (!found.ran || found.foreign.empty()) return std::nullopt;
  const ToolkitProbe& toolkit = probes.toolkit;
  std::vector<std::string> places, components;
  for (const ForeignLibrary& library : found.foreign) {
    places.push_back(library.soname + " from " + library.found.string() + cuda_suffix(library.toolkit_version));
    if (std::find(components.begin(), components.end(), library.component) == components.end())
      components.push_back(library.component);
  }
  std::string install = "cudaenv install " + toolkit.name + " --force";
  for (const std::string& component : components) install += " --component " + component;
  return finding("toolkit-foreign-libraries", Severity::warning,
                 "CUDA " + toolkit.name + " has no " + join(components, ", ") + ": programs load " + join(places, "; "),
                 "The selected toolkit (" + toolkit.home.string() +
                     ") lacks these libraries, so the dynamic loader takes "
                     "them from LD_LIBRARY_PATH, ld.so.cache or the system folders, here from another toolkit; NVIDIA's "
                     "cuda.pathfinder (cuda-python, CuPy) does the same after NVIDIA's wheels and CONDA_PREFIX. One program "
                     "then runs libraries of two CUDA releases. Reinstalling with the component (redist-profiles.toml's torch "
                     "profile has the usual ones) makes the toolkit whole.",
                 {install});
}

}  // namespace cudaenv::doctor_detail
