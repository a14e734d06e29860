// `cudaenv doctor`: every probe, every check, the report; exit 1 when a check fails.

#include <cstdio>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/session.h"
#include "core/settings_table.h"
#include "doctor/checks.h"
#include "doctor/driver_fit.h"
#include "doctor/probes.h"
#include "doctor/report.h"
#include "extensions/cached_lookup.h"
#include "util/output.h"
#include "util/process.h"

namespace cudaenv {

namespace {

struct DoctorOptions {
  bool json = false;
  bool driver_probe = false;       // be the child that loads the driver (probe_driver)
  std::string machine_root = "/";  // a stand-in machine's /proc, /sys and /usr/lib/wsl (tests)
  std::string python;
  // Importing torch reads hundreds of megabytes of libraries; a cold cache takes seconds.
  double timeout_s = 60;
};

Result<int> run_doctor(const Session& session, const DoctorOptions& options) {
  if (options.driver_probe) {
    print_driver_probe(RealFileSystem(), options.machine_root);
    return 0;
  }
  // Written so that NaN fails too; inf or 1e300 would overflow the milliseconds below.
  if (!(options.timeout_s > 0 && options.timeout_s <= 86400)) {
    return make_error("--timeout " + std::to_string(options.timeout_s) + " is not a number of seconds up to a day",
                      "e.g. --timeout 120", ErrorKind::usage);
  }
  CUDAENV_TRY_ASSIGN(auto stand_in, driver_override(session.env));
  CUDAENV_TRY_ASSIGN(auto target, session.selected_target());
  CUDAENV_TRY_ASSIGN(auto facts, load_cuda_facts(session.data));
  CUDAENV_TRY(use_index_base(facts.torch_matrix, env_setting(kTorchIndexSetting, session.env).value));
  SelectionOutcome selection = select_or_fail(session.fs, session.env, session.cwd, session.layout, session.toolkit_index());
  std::optional<fs::path> python;
  if (!options.python.empty()) python = options.python;
  auto timeout = std::chrono::milliseconds(static_cast<long long>(options.timeout_s * 1000));
  // A target is a whole machine: CUDAENV_DRIVER_VERSION stands in for this machine's driver only.
  auto stand_in_for_driver = [&](DriverProbe& driver) {
    if (target) driver = target_driver(target->target, target->setting.origin(), &driver);
    else if (stand_in) stand_in_driver(driver, *stand_in);
  };
  Probes probes = run_probes(ProbeContext{session.fs, session.env, session.cwd, session.layout, selection, python, timeout,
                                          options.machine_root, stand_in_for_driver});
  CUDAENV_TRY_ASSIGN(auto mirror, extension_mirror(env_setting(kExtensionWheelsSetting, session.env)));
  probes.extension_fixes.mirror = mirror;
  probes.extension_fixes.cores = usable_cores();
  std::vector<std::string> wheels = extension_wheels_wanted(probes, facts);
  if (!wheels.empty())
    probes.extension_fixes.wheels = CachedWheelLookup(session.fs, session.layout.cache_dir(), session.env, false).check(wheels);
  std::vector<Finding> findings = run_checks(probes, facts);
  std::string text = options.json ? render_json(probes, findings) : render_report(probes, findings, wants_colour(stdout));
  std::fputs(text.c_str(), stdout);
  return has_error(findings) ? 1 : 0;
}

}  // namespace

CommandHandler configure_doctor(CLI::App& command) {
  auto options = std::make_shared<DoctorOptions>();
  command.add_flag("--json", options->json, "Print every probe and finding as JSON");
  command.add_option("--python", options->python, "Python interpreter to ask about torch (default: python3 on PATH)");
  command.add_option("--timeout", options->timeout_s, "Seconds the driver and the Python probe may each take (default: 60)")
      ->check(CLI::PositiveNumber);
  command.add_flag("--driver-probe", options->driver_probe)->group("");    // hidden: doctor runs itself with it
  command.add_option("--machine-root", options->machine_root)->group("");  // hidden: a test's stand-in machine
  return [options](const Setup& setup) { return run_doctor(setup.session(), *options); };
}

}  // namespace cudaenv
