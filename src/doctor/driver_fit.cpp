#include "doctor/driver_fit.h"

#include <algorithm>

#include "util/strings.h"

namespace cudaenv {

DriverShortfall driver_shortfall(const DriverProbe& driver, const Version& cuda, const CudaFacts& facts) {
  if (driver.cuda) {
    if (cuda.major() > driver.cuda->major()) return DriverShortfall::major;
    if (major_minor(cuda) > major_minor(*driver.cuda)) return DriverShortfall::minor;
    return DriverShortfall::none;
  }
  if (!driver.version) return DriverShortfall::none;
  auto floor = facts.family_driver.find(cuda.major());
  if (floor != facts.family_driver.end() && driver.version->number < floor->second.number) return DriverShortfall::major;
  const CudaRelease* release = facts.release(cuda);
  if (release && release->driver && driver.version->number < release->driver->number) return DriverShortfall::minor;
  return DriverShortfall::none;
}

std::string driver_needed(const Version& cuda, const CudaFacts& facts) {
  const CudaRelease* release = facts.release(cuda);
  if (release && release->driver) return release->driver->text;
  auto floor = facts.family_driver.find(cuda.major());
  return floor == facts.family_driver.end() ? "a newer one" : floor->second.text;
}

std::string shortfall_consequence(DriverShortfall shortfall, const Version& cuda, const CudaFacts& facts) {
  std::string what = shortfall == DriverShortfall::major
                         ? "A CUDA " + std::to_string(cuda.major()) +
                               " program cannot even initialise on it "
                               "(\"CUDA driver version is insufficient for CUDA runtime version\")."
                         : "It runs through minor-version compatibility, but PTX newer than the driver cannot be JIT-"
                           "compiled (cudaErrorUnsupportedPtxVersion) and newer features fail.";
  return what + " CUDA " + major_minor(cuda).str() + " wants driver >= " + driver_needed(cuda, facts) + ".";
}

std::string driver_reach(const DriverProbe& driver) {
  if (driver.cuda) return "runs CUDA up to " + major_minor(*driver.cuda).str();
  return driver.version ? "is " + driver.version->text : "is unknown";
}

const CudaRelease* newest_runnable(const DriverProbe& driver, const CudaFacts& facts) {
  if (driver.cuda) return facts.newest_within(*driver.cuda);
  const CudaRelease* best = nullptr;
  for (const CudaRelease& release : facts.releases) {
    if (driver.version && release.driver && release.driver->number <= driver.version->number) best = &release;
  }
  return best;
}

void stand_in_driver(DriverProbe& driver, const DriverReading& reading) {
  if (driver.version) {
    driver.replaced = driver.version->text + (driver.cuda ? ", CUDA " + major_minor(*driver.cuda).str() : "");
  } else {
    driver.replaced = driver.problem.empty() ? "none found" : "none: " + driver.problem;
  }
  driver.version = parse_driver_version(reading.version);
  driver.version_source = reading.source.string();
  driver.cuda.reset();
}

namespace {

std::vector<ComputeCapability> capabilities_of(const std::vector<Gpu>& gpus) {
  std::vector<ComputeCapability> capabilities;
  for (const Gpu& gpu : gpus) capabilities.push_back(gpu.capability);
  std::sort(capabilities.begin(), capabilities.end());
  return capabilities;
}

// "no GPU here", "no GPU here (driver 550.54.14)", "driver 550.54.14, 1 GPU (NVIDIA GeForce RTX 4090, 8.9)"
std::string machine_summary(const DriverProbe& machine) {
  std::string driver = machine.version ? "driver " + machine.version->text : "";
  if (machine.gpus.empty()) return "no GPU here" + (driver.empty() ? "" : " (" + driver + ")");
  std::vector<std::string> gpus;
  for (const Gpu& gpu : machine.gpus) gpus.push_back(gpu.name + ", " + gpu.capability.str());
  std::string count = std::to_string(machine.gpus.size()) + (machine.gpus.size() == 1 ? " GPU" : " GPUs");
  return (driver.empty() ? "" : driver + ", ") + count + " here (" + join(gpus, "; ") + ")";
}

}  // namespace

DriverProbe target_driver(const Target& target, const std::string& origin, const DriverProbe* machine) {
  DriverProbe driver;
  driver.loaded = true;
  driver.version = target.driver;
  driver.version_source = target.path.string();
  if (target.cuda) driver.cuda = target.cuda;
  for (const TargetGpu& gpu : target.gpus) {
    driver.gpus.push_back(
        Gpu{gpu.name.empty() ? "a compute capability " + gpu.capability.str() + " GPU" : gpu.name, gpu.capability});
  }
  DriverTarget about{target.name, origin, target.path, "", false};
  if (machine) {
    about.machine = machine_summary(*machine);
    about.matches = machine->version && machine->version->text == target.driver.text &&
                    capabilities_of(machine->gpus) == capabilities_of(driver.gpus);
  }
  driver.target = std::move(about);
  return driver;
}

}  // namespace cudaenv
