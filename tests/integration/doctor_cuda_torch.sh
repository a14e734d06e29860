# cudaenv doctor: the toolkit against torch, DeepSpeed and the driver, with a fake driver
# library, fake torch/DeepSpeed packages and fake toolkits.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_doctor.sh"

fake_gcc gcc 11.4.0
for version in 11.8 12.4 13.0 13.2; do install_toolkit "$version"; done
RTX4090="NVIDIA GeForce RTX 4090:8.9"

# The seed case: toolkit 11.8, torch 2.1.2+cu121, DeepSpeed installed.
"$CUDAENV" global 11.8 >/dev/null 2>&1
use_driver 12040 550.54.14 "$RTX4090"
fake_torch 2.1.2+cu121 12.1 "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"
fake_deepspeed 0.12.6
doctor
assert_eq 1 "$STATUS" "seed: exit status"
assert_eq error "$(severity_of toolkit-torch)" "seed: toolkit vs torch"
assert_contains "$(title_of toolkit-torch)" "CUDA major mismatch: nvcc 11.8" "seed: title"
assert_contains "$(explanation_of toolkit-torch)" "Installed CUDA version 11.8 does not match the version torch was compiled with 12.1" "seed: the message people search for"
assert_contains "$(explanation_of toolkit-torch)" "DeepSpeed" "seed: DeepSpeed refuses too"
assert_eq "cudaenv install 12.1 && cudaenv use 12.1
cudaenv torch --torch 2.1.2 --cuda 11.8" "$(fixes_of toolkit-torch)" "seed: the two classic fixes"
assert_eq "" "$(severity_of deepspeed-cuda)" "seed: the major mismatch is reported once"
assert_eq "ok ok" "$(severity_of driver-toolkit) $(severity_of driver-torch)" "seed: driver 12.4 runs both"
assert_eq "ok" "$(severity_of gpu-torch)" "seed: cu121 wheels run on 8.9 through sm_86"
assert_eq "0.12.6" "$(probe .probes.python.deepspeed)" "seed: DeepSpeed version probed"
assert_eq "2.1.2+cu121" "$(probe .probes.python.torch)" "seed: torch version probed"
assert_eq "true" "$(probe .probes.nvcc.via_shim)" "seed: nvcc on PATH is a shim"
assert_eq "11.8" "$(probe .probes.nvcc.version)" "seed: the shim resolves to 11.8's nvcc"
# The human report names the problem and prints the fixes as commands.
run_capture "$CUDAENV" doctor --python "$PYTHON"
assert_eq 1 "$STATUS" "seed report: exit status"
assert_contains "$OUT" "✗ CUDA major mismatch" "seed report: error mark"
assert_contains "$OUT" "fix: cudaenv install 12.1 && cudaenv use 12.1" "seed report: first fix"
assert_contains "$OUT" "or:  cudaenv torch --torch 2.1.2 --cuda 11.8" "seed report: second fix"
assert_not_contains "$OUT" $'\033[' "seed report: no colour when piped"
# With 12.1 installed the fix is only to switch.
install_toolkit 12.1.1
doctor
assert_contains "$(fixes_of toolkit-torch)" "cudaenv use 12.1" "seed: installed toolkit is switched to"
assert_not_contains "$(fixes_of toolkit-torch)" "cudaenv install 12.1" "seed: nothing to install"

# Minor mismatch 12.1 with torch cu124: DeepSpeed 0.12.6 lists only 12.0-12.3 and refuses
# it; 0.14.3 added 12.4 and accepts it.
"$CUDAENV" global 12.1 >/dev/null 2>&1
fake_torch 2.4.0+cu124 12.4 "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"
doctor
assert_eq 1 "$STATUS" "0.12.6 minor: exit status"
assert_eq warning "$(severity_of toolkit-torch)" "0.12.6 minor: torch warns"
assert_eq error "$(severity_of deepspeed-cuda)" "0.12.6 minor: DeepSpeed 0.12.6 refuses 12.1/12.4"
assert_contains "$(explanation_of deepspeed-cuda)" "minors are 12.0, 12.1, 12.2, 12.3" "0.12.6 minor: its own list"
assert_contains "$(fixes_of deepspeed-cuda)" "'$PYTHON' -m pip install 'deepspeed>=0.14.3'" "0.12.6 minor: upgrade offered"
fake_deepspeed 0.14.3 pip
doctor
assert_eq 0 "$STATUS" "tolerated minor: exit status"
assert_eq warning "$(severity_of toolkit-torch)" "tolerated minor: torch warns"
assert_eq ok "$(severity_of deepspeed-cuda)" "tolerated minor: DeepSpeed 0.14.3 accepts 12.1/12.4"
assert_contains "$(fixes_of toolkit-torch)" "cudaenv use 12.4" "tolerated minor: fix to torch's minor"
fake_deepspeed 0.12.6

# Minor mismatch DeepSpeed refuses: 13.2 with torch cu130 (13 has no tolerated list).
"$CUDAENV" global 13.2 >/dev/null 2>&1
use_driver 13020 595.45.04 "$RTX4090"
fake_torch 2.9.0+cu130 13.0 "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120"
doctor
assert_eq 1 "$STATUS" "refused minor: exit status"
assert_eq warning "$(severity_of toolkit-torch)" "refused minor: torch only warns"
assert_eq error "$(severity_of deepspeed-cuda)" "refused minor: DeepSpeed refuses"
assert_contains "$(title_of deepspeed-cuda)" "DeepSpeed 0.12.6 refuses nvcc 13.2 with torch's CUDA 13.0" "refused minor: title"
assert_eq "cudaenv use 13.0
cudaenv torch --torch 2.9.0 --cuda 13.2
export DS_SKIP_CUDA_CHECK=1" "$(fixes_of deepspeed-cuda)" "refused minor: fixes"
DS_SKIP_CUDA_CHECK=1 doctor
assert_eq 0 "$STATUS" "DS_SKIP_CUDA_CHECK: exit status"
assert_eq warning "$(severity_of deepspeed-cuda)" "DS_SKIP_CUDA_CHECK: only a warning"
assert_eq info "$(severity_of deepspeed-skip)" "DS_SKIP_CUDA_CHECK: reported"
# It silences a major mismatch too (DeepSpeed 0.9.3 on); 0.9.2 predates it.
"$CUDAENV" global 12.4 >/dev/null 2>&1
DS_SKIP_CUDA_CHECK=1 doctor
assert_eq error "$(severity_of toolkit-torch)" "DS_SKIP_CUDA_CHECK major: torch still refuses"
assert_contains "$(title_of deepspeed-cuda)" "lets nvcc 12.4 with torch's CUDA 13.0 through (DS_SKIP_CUDA_CHECK=1)" "DS_SKIP_CUDA_CHECK major: DeepSpeed lets it through"
fake_deepspeed 0.9.2
DS_SKIP_CUDA_CHECK=1 doctor
assert_eq "DS_SKIP_CUDA_CHECK=1 is set, and DeepSpeed 0.9.2 ignores it" "$(title_of deepspeed-skip)" "DS_SKIP_CUDA_CHECK: too old a DeepSpeed"
fake_deepspeed 0.12.6

# Driver too old: it runs CUDA 11.8 at most, toolkit and torch are 12.4.
"$CUDAENV" global 12.4 >/dev/null 2>&1
use_driver 11080 520.61.05 "$RTX4090"
fake_torch 2.4.0+cu124 12.4 "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"
doctor
assert_eq 1 "$STATUS" "old driver: exit status"
assert_eq error "$(severity_of driver-toolkit)" "old driver: toolkit"
assert_eq error "$(severity_of driver-torch)" "old driver: torch"
assert_contains "$(title_of driver-torch)" "torch's CUDA 12.4 needs a newer driver: this one runs CUDA up to 11.8" "old driver: title"
assert_contains "$(explanation_of driver-toolkit)" "driver >= 550.54.14" "old driver: names the driver 12.4 wants"
assert_eq "cudaenv use 11.8" "$(fixes_of driver-toolkit)" "old driver: toolkit fix (11.8 is installed)"
assert_eq "cudaenv torch --cuda 11.8" "$(fixes_of driver-torch)" "old driver: torch fix"
# Within the major the driver runs newer minors with limits: a warning.
use_driver 12020 535.54.03 "$RTX4090"
doctor
assert_eq 0 "$STATUS" "older minor driver: exit status"
assert_eq "warning warning" "$(severity_of driver-toolkit) $(severity_of driver-torch)" "older minor driver: warnings"
assert_contains "$(explanation_of driver-torch)" "minor-version compatibility" "older minor driver: why"

# No driver at all: reported, not a crash; nothing that needs the driver is judged.
no_driver
doctor
assert_eq 0 "$STATUS" "no driver: exit status"
assert_eq warning "$(severity_of driver)" "no driver: warning"
assert_contains "$(title_of driver)" "libcuda.so.1 cannot be loaded" "no driver: says why"
assert_eq "false" "$(probe .probes.driver.loaded)" "no driver: probe"
assert_eq "" "$(severity_of driver-toolkit)$(severity_of gpu-toolkit)$(severity_of gpu-torch)" "no driver: no driver checks"
# A driver that loads but sees no GPU.
use_driver 12040 550.54.14 ""
doctor
assert_eq warning "$(severity_of driver)" "no GPU: warning"
assert_contains "$(title_of driver)" "CUDA_ERROR_NO_DEVICE" "no GPU: says why"

# Everything consistent: 12.4 everywhere, a 4090, gcc 11: no warning, exit 0.
use_driver 12040 550.54.14 "$RTX4090"
fake_deepspeed 0.14.4 pip
doctor
assert_eq 0 "$STATUS" "consistent: exit status"
assert_eq 0 "$(count error)" "consistent: no error"
assert_eq 0 "$(count warning)" "consistent: no warning"
assert_eq true "$(probe .ok)" "consistent: ok"
assert_eq "NVIDIA GeForce RTX 4090" "$(probe '.probes.driver.gpus[0].name')" "consistent: GPU name"
assert_eq "8.9" "$(probe '.probes.driver.gpus[0].compute_capability')" "consistent: capability"
assert_eq "550.54.14" "$(probe .probes.driver.version)" "consistent: driver version from NVML"
assert_eq "12.4" "$(probe .probes.driver.cuda)" "consistent: driver CUDA"
assert_eq "0.14.4" "$(probe .probes.python.deepspeed)" "consistent: DeepSpeed's version from its dist-info"
run_capture "$CUDAENV" doctor --python "$PYTHON"
assert_contains "$OUT" "0 errors, 0 warnings, $(count ok) checks passed" "consistent report: summary"
assert_not_contains "$OUT" "note" "consistent report: nothing merely noted"

# torch not installed is a note, not a passed check, and the summary says so apart.
no_python_packages
doctor
assert_eq info "$(severity_of python)" "no torch: a note"
assert_eq "torch is not installed for $PYTHON" "$(title_of python)" "no torch: says so"
PASSED=$(count ok)
run_capture "$CUDAENV" doctor --python "$PYTHON"
assert_contains "$OUT" "ℹ torch is not installed for $PYTHON" "no torch: shown as a note"
assert_contains "$OUT" "0 errors, 0 warnings, $PASSED checks passed (1 note)" "no torch: not counted as passed"

finish
