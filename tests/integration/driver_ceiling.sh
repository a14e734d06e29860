# The driver ceiling: `install` reads the driver as doctor does (the fake libcuda.so.1 here) and
# warns, before it downloads, about a toolkit that driver cannot run; a machine without a driver
# installs quietly; CUDAENV_DRIVER_VERSION stands in for the driver in install, torch and doctor.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
. "$(dirname "$0")/lib_doctor.sh"

for label in 12.4.1 12.6.3 13.0.2; do add_fake_release "$label"; done
start_mirror
fresh_root() { rm -rf "$CUDAENV_ROOT/versions"; }

# No driver: a build machine installs anything without a word about drivers.
no_driver
if [ -e /sys/module/nvidia ] || [ -e /proc/driver/nvidia ]; then
  echo "this machine has an NVIDIA driver: the no-driver case is not checked" >&2
else
  install_from_mirror 13.0.2
  assert_eq 0 "$STATUS" "no driver: 13.0.2 installs: $ERR"
  assert_not_contains "$ERR" "driver" "no driver: not a word about drivers"
fi

# A driver that runs CUDA 12.4 (550.54.14): 13.0 cannot run at all, 12.6 only in part, 12.4 fully.
use_driver 12040 550.54.14 "NVIDIA GeForce RTX 4090:8.9"
fresh_root
install_from_mirror 13.0.2
assert_eq 0 "$STATUS" "the warning does not stop the install: $ERR"
assert_contains "$ERR" "warning: CUDA 13.0.2 needs NVIDIA driver >= 580.65.06, and this machine's driver 550.54.14 (runs CUDA up to 12.4) cannot run it" "13.0 under 550: the driver it needs"
assert_contains "$ERR" "CUDA driver version is insufficient for CUDA runtime version" "13.0 under 550: what programs will say"
assert_contains "$ERR" '`cudaenv install 12.4`' "13.0 under 550: the toolkit that driver runs"
warned_at=$(grep -n "needs NVIDIA driver" <<<"$ERR" | head -n 1 | cut -d: -f1)
downloaded_at=$(grep -n "downloading " <<<"$ERR" | head -n 1 | cut -d: -f1)
check "the warning comes before the first download ($warned_at < $downloaded_at)" test "${warned_at:-99}" -lt "${downloaded_at:-0}"
install_from_mirror 13.0.2
assert_not_contains "$ERR" "needs NVIDIA driver" "already installed: nothing downloaded, no warning"
install_from_mirror 12.6.3
assert_contains "$ERR" "CUDA 12.6.3 needs NVIDIA driver >= 560.28.03, and this machine's driver 550.54.14 (runs CUDA up to 12.4) runs it only in part" "12.6 under 550: minor-version compatibility"
assert_contains "$ERR" "PTX newer than the driver cannot be JIT-compiled" "12.6 under 550: what fails"
install_from_mirror 12.4.1
assert_not_contains "$ERR" "needs NVIDIA driver" "12.4 under 550: no warning"

# CUDAENV_DRIVER_VERSION stands in for the probed driver.
fresh_root
CUDAENV_DRIVER_VERSION=580.65.06 install_from_mirror 13.0.2
assert_not_contains "$ERR" "needs NVIDIA driver" "CUDAENV_DRIVER_VERSION=580.65.06: 13.0 runs, no warning"
no_driver
fresh_root
CUDAENV_DRIVER_VERSION=550.54.14 install_from_mirror 13.0.2
assert_contains "$ERR" "warning: CUDA 13.0.2 needs NVIDIA driver >= 580.65.06, and the driver 550.54.14 (CUDAENV_DRIVER_VERSION) cannot run it" "override without a driver: warned about"
fresh_root
CUDAENV_DRIVER_VERSION=banana install_from_mirror 13.0.2
assert_eq 1 "$STATUS" "a bad CUDAENV_DRIVER_VERSION is an error"
assert_contains "$ERR" "error: CUDAENV_DRIVER_VERSION='banana' is not an NVIDIA driver version" "the error names the variable and value"
assert_contains "$ERR" "e.g. CUDAENV_DRIVER_VERSION=580.65.06" "the error says how to write it"
check "nothing installed after the error" test ! -e "$CUDAENV_ROOT/versions/13.0.2"

# torch takes it as the driver when --driver is not given.
run_capture env CUDAENV_DRIVER_VERSION=470.82.01 "$CUDAENV" torch --cuda 12.4
assert_eq 1 "$STATUS" "torch: a driver below CUDA 12's floor fails"
assert_contains "$ERR" "NVIDIA driver 470.82.01 (CUDAENV_DRIVER_VERSION) is too old" "torch: names the override as the driver's origin"
run_capture env CUDAENV_DRIVER_VERSION=470.82.01 "$CUDAENV" torch --cuda 12.4 --driver 550.54.14
assert_eq 0 "$STATUS" "torch: --driver wins over the variable: $ERR"

# doctor: the override is the driver its checks use, said as such; the GPUs still come from the probe.
install_toolkit 13.0
"$CUDAENV" global 13.0 >/dev/null 2>&1
use_driver 12040 550.54.14 "NVIDIA GeForce RTX 4090:8.9"
doctor
assert_eq error "$(severity_of driver-toolkit)" "doctor: 13.0 under the real 12.4 driver"
CUDAENV_DRIVER_VERSION=580.65.06 doctor
assert_eq info "$(severity_of driver)" "doctor: the stand-in is a note, not a passed check"
assert_contains "$(title_of driver)" "CUDAENV_DRIVER_VERSION=580.65.06 stands in for this machine's driver (550.54.14, CUDA 12.4)" "doctor: names both drivers"
assert_eq ok "$(severity_of driver-toolkit)" "doctor: 13.0 under the stand-in 580.65.06"
assert_eq "CUDAENV_DRIVER_VERSION" "$(probe .probes.driver.version_source)" "doctor --json: the version's source"
assert_eq "8.9" "$(probe '.probes.driver.gpus[0].compute_capability')" "doctor: the probed GPU kept"
CUDAENV_DRIVER_VERSION=550.54.14 doctor
assert_eq error "$(severity_of driver-toolkit)" "doctor: the stand-in 550 cannot run 13.0"
assert_contains "$(fixes_of driver-toolkit)" "cudaenv install 12.4 && cudaenv use 12.4" "doctor: the fix from the stand-in's version alone"
no_driver
CUDAENV_DRIVER_VERSION=580.65.06 doctor
assert_contains "$(title_of driver)" "stands in for this machine's driver (none: libcuda.so.1 cannot be loaded" "doctor: no driver here, said"
CUDAENV_DRIVER_VERSION=5 doctor
assert_eq 1 "$STATUS" "doctor: a bad value fails"
assert_contains "$ERR" "CUDAENV_DRIVER_VERSION='5' is not an NVIDIA driver version" "doctor: the bad value named"
finish
