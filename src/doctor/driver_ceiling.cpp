#include "doctor/driver_ceiling.h"

#include "doctor/driver_fit.h"

namespace cudaenv {

namespace {

// cuInit alone takes a second on a machine with many GPUs; a driver that takes longer is
// doctor's to diagnose, not install's.
constexpr std::chrono::seconds kProbeTimeout{20};

std::string driver_named(const DriverProbe& driver) {
  if (driver.target) {
    return "target " + driver.target->name + "'s driver " + driver.version->text + " (set by " + driver.target->origin + ")";
  }
  if (driver.overridden()) return "the driver " + driver.version->text + " (" + driver.version_source + ")";
  std::string named = "this machine's driver";
  if (driver.version) named += " " + driver.version->text;
  return named + (driver.cuda ? " (runs CUDA up to " + major_minor(*driver.cuda).str() + ")" : "");
}

}  // namespace

DriverProbe install_driver(const FileSystemView& fs, const EnvMap& env, const std::optional<SelectedTarget>& target,
                           const std::optional<DriverReading>& stand_in) {
  DriverProbe driver;
  if (target) driver = target_driver(target->target, target->setting.origin(), nullptr);
  else if (stand_in) stand_in_driver(driver, *stand_in);
  else driver = probe_driver(fs, env, kProbeTimeout);
  return driver;
}

std::optional<DriverCeiling> driver_ceiling(const DriverProbe& driver, const std::string& label, const CudaFacts& facts) {
  auto parsed = parse_version(label);
  if (!parsed || (!driver.cuda && !driver.version)) return std::nullopt;
  const Version& cuda = *parsed;
  DriverShortfall shortfall = driver_shortfall(driver, cuda, facts);
  if (shortfall == DriverShortfall::none) return std::nullopt;
  DriverCeiling out;
  out.warning = "CUDA " + label + " needs NVIDIA driver >= " + driver_needed(cuda, facts) + ", and " + driver_named(driver) +
                (shortfall == DriverShortfall::major ? " cannot run it" : " runs it only in part");
  out.advice = "  " + shortfall_consequence(shortfall, cuda, facts) + "\n  Upgrade the NVIDIA driver";
  if (const CudaRelease* fits = newest_runnable(driver, facts)) {
    out.advice += ", or install what it runs: `cudaenv install " + fits->version.str() + "`";
  }
  return out;
}

}  // namespace cudaenv
