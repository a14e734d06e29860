#include "cli/driver_ceiling.h"

#include <optional>

#include "doctor/driver_fit.h"
#include "util/output.h"

namespace cudaenv {

namespace {

// cuInit alone takes a second on a machine with many GPUs; a driver that takes longer is
// doctor's to diagnose, not install's.
constexpr std::chrono::seconds kProbeTimeout{20};

// Read once per command: a multi-version install asks for each version.
Result<DriverProbe> machine_driver(const Session& session) {
  static std::optional<DriverProbe> probed;
  if (probed) return *probed;
  CUDAENV_TRY_ASSIGN(auto stand_in, driver_override(session.env));
  CUDAENV_TRY_ASSIGN(auto target, session.selected_target());
  DriverProbe driver;
  if (target) driver = target_driver(target->target, target->setting.origin(), nullptr);
  else if (stand_in) stand_in_driver(driver, *stand_in);
  else driver = probe_driver(session.fs, session.env, kProbeTimeout);
  probed = driver;
  return driver;
}

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

Status warn_driver_ceiling(const Session& session, const std::string& label) {
  auto cuda = parse_version(label);
  if (!cuda) return ok_status();
  CUDAENV_TRY_ASSIGN(auto driver, machine_driver(session));
  if (!driver.cuda && !driver.version) return ok_status();
  CUDAENV_TRY_ASSIGN(auto facts, load_cuda_facts(session.data));
  DriverShortfall shortfall = driver_shortfall(driver, *cuda, facts);
  if (shortfall == DriverShortfall::none) return ok_status();
  print_warning("CUDA " + label + " needs NVIDIA driver >= " + driver_needed(*cuda, facts) + ", and " + driver_named(driver) +
                (shortfall == DriverShortfall::major ? " cannot run it" : " runs it only in part"));
  std::string advice = "  " + shortfall_consequence(shortfall, *cuda, facts) + "\n  Upgrade the NVIDIA driver";
  if (const CudaRelease* fits = newest_runnable(driver, facts)) {
    advice += ", or install what it runs: `cudaenv install " + fits->version.str() + "`";
  }
  print_note(advice);
  return ok_status();
}

}  // namespace cudaenv
