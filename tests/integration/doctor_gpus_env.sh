# cudaenv doctor: GPUs against the toolkit and torch, TORCH_CUDA_ARCH_LIST, the host
# compiler, nvcc on PATH vs CUDA_HOME, LD_LIBRARY_PATH and cuda.toml.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_doctor.sh"

fake_gcc gcc 11.4.0
for version in 11.7 11.8 12.1 12.4; do install_toolkit "$version"; done
CU124_ARCHS="sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"

# RTX 4090 (8.9) with CUDA 11.7: nvcc 11.7 has no sm_89.
"$CUDAENV" global 11.7 >/dev/null 2>&1
use_driver 12040 550.54.14 "NVIDIA GeForce RTX 4090:8.9"
doctor
assert_eq 1 "$STATUS" "4090 + 11.7: exit status"
assert_eq error "$(severity_of gpu-toolkit)" "4090 + 11.7: verdict"
assert_contains "$(title_of gpu-toolkit)" "cannot target NVIDIA GeForce RTX 4090 (compute capability 8.9, sm_89)" "4090 + 11.7: title"
assert_contains "$(explanation_of gpu-toolkit)" "CUDA first supports it in 11.8" "4090 + 11.7: why"
assert_eq "cudaenv use 11.8
export TORCH_CUDA_ARCH_LIST='8.6'" "$(fixes_of gpu-toolkit)" "4090 + 11.7: fixes"

# RTX 5090 (12.0) with toolkit 12.4 and torch cu124: neither has Blackwell code.
"$CUDAENV" global 12.4 >/dev/null 2>&1
use_driver 12080 570.86.10 "NVIDIA GeForce RTX 5090:12.0"
fake_torch 2.4.0+cu124 12.4 "$CU124_ARCHS"
doctor
assert_eq 1 "$STATUS" "5090: exit status"
assert_eq error "$(severity_of gpu-toolkit)" "5090: toolkit verdict"
assert_eq "cudaenv install 12.8 && cudaenv use 12.8" "$(fixes_of gpu-toolkit)" "5090: toolkit fix"
assert_eq error "$(severity_of gpu-torch)" "5090: torch verdict"
assert_contains "$(explanation_of gpu-torch)" "no kernel image is available" "5090: the runtime error named"
assert_eq "$PYTHON -m pip install torch==2.11.0+cu128 torchvision==0.26.0+cu128 torchaudio==2.11.0+cu128 --index-url https://download.pytorch.org/whl/cu128" \
  "$(fixes_of gpu-torch)" "5090: torch fix"
assert_eq ok "$(severity_of toolkit-torch)" "5090: toolkit and torch agree with each other"
# A PTX entry in torch's arch list covers newer GPUs.
fake_torch 2.4.0+cu124 12.4 "$CU124_ARCHS compute_90"
doctor
assert_eq ok "$(severity_of gpu-torch)" "5090: compute_90 PTX is JIT-compiled"
# Two GPUs, one old one new: one finding each.
use_driver 12080 570.86.10 "Tesla P100-PCIE-16GB:6.0;NVIDIA GeForce RTX 5090:12.0"
fake_torch 2.9.0+cu130 12.4 "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"
doctor
assert_eq "error ok" "$(severity_of gpu-torch)" "P100 + 5090: per GPU"
assert_eq "$PYTHON -m pip install torch==2.14.1+cu126 torchvision==0.29.1+cu126 --index-url https://download.pytorch.org/whl/cu126" \
  "$(fixes_of gpu-torch)" "P100: wheels that still carry Pascal"

# TORCH_CUDA_ARCH_LIST naming archs 12.4 cannot build.
no_python_packages
use_driver 12040 550.54.14 "NVIDIA H100 80GB HBM3:9.0"
TORCH_CUDA_ARCH_LIST="8.6;8.9;Hopper;12.0+PTX" doctor
assert_eq 1 "$STATUS" "arch list: exit status"
assert_eq error "$(severity_of arch-list)" "arch list: verdict"
assert_contains "$(title_of arch-list)" "cannot build 12.0+PTX" "arch list: names the entry"
assert_eq "export TORCH_CUDA_ARCH_LIST='8.6;8.9;Hopper'" "$(fixes_of arch-list)" "arch list: fix keeps the rest"
TORCH_CUDA_ARCH_LIST="8.6 9.0a" doctor
assert_eq ok "$(severity_of arch-list)" "arch list: space separated, suffixed entries"
TORCH_CUDA_ARCH_LIST="8.6;Lovelace" doctor
assert_eq warning "$(severity_of arch-list)" "arch list: unknown names warn"

# gcc 13 with CUDA 11.8: nvcc's host_config.h refuses it.
"$CUDAENV" global 11.8 >/dev/null 2>&1
fake_gcc gcc 13.2.0
doctor
assert_eq 1 "$STATUS" "gcc 13 + 11.8: exit status"
assert_eq error "$(severity_of host-compiler)" "gcc 13 + 11.8: verdict"
assert_contains "$(explanation_of host-compiler)" "gcc versions later than 11 are not supported" "gcc 13 + 11.8: nvcc's message"
assert_contains "$(fixes_of host-compiler)" "cudaenv install 12.3 && cudaenv use 12.3" "gcc 13 + 11.8: or a CUDA that takes gcc 13"
fake_gcc gcc-11 11.4.0
doctor
assert_eq "cudaenv use --host-compiler gcc-11" "$(fixes_of host-compiler | head -n 1)" "gcc 13 + 11.8: gcc-11 on PATH is used"
CC=gcc-11 doctor
assert_eq ok "$(severity_of host-compiler)" "CC=gcc-11: accepted"
assert_eq "CC" "$(probe .probes.compiler.variable)" "CC=gcc-11: probe says where it came from"
NVCC_CCBIN=gcc CC=gcc-11 doctor
assert_eq error "$(severity_of host-compiler)" "NVCC_CCBIN wins over CC"
fake_gcc gcc 11.4.0

# nvcc on PATH (the 12.1 shim) is not $CUDA_HOME/bin/nvcc (11.8).
"$CUDAENV" global 12.1 >/dev/null 2>&1
CUDA_HOME="$CUDAENV_ROOT/versions/11.8" doctor
assert_eq warning "$(severity_of nvcc-path)" "PATH vs CUDA_HOME: verdict"
assert_contains "$(title_of nvcc-path)" "versions/12.1/bin/nvcc (12.1) vs $CUDAENV_ROOT/versions/11.8/bin/nvcc (11.8)" "PATH vs CUDA_HOME: both named"
assert_eq "eval \"\$(cudaenv env)\"" "$(fixes_of nvcc-path | head -n 1)" "PATH vs CUDA_HOME: fix"
assert_eq warning "$(severity_of cuda-home)" "CUDA_HOME vs active toolkit"
assert_eq "11.8" "$(probe .probes.cuda_home.version)" "CUDA_HOME: probed version"
CUDA_HOME="$WORK/nowhere" doctor
assert_eq error "$(severity_of nvcc-path)" "CUDA_HOME without nvcc: torch cannot build"
CUDA_HOME="$CUDAENV_ROOT/versions/12.1" doctor
assert_eq ok "$(severity_of nvcc-path)" "CUDA_HOME agrees with the shim"
assert_eq "" "$(severity_of cuda-home)" "CUDA_HOME is the active toolkit"

# Another toolkit's libraries on LD_LIBRARY_PATH.
LD_LIBRARY_PATH="$FAKE_DRIVER_DIR:$CUDAENV_ROOT/versions/11.8/lib64:/opt/lib" doctor
assert_eq warning "$(severity_of ld-library-path)" "stray toolkit: verdict"
assert_contains "$(title_of ld-library-path)" "versions/11.8/lib64 (CUDA 11.8)" "stray toolkit: named"
assert_eq "export LD_LIBRARY_PATH='$FAKE_DRIVER_DIR:/opt/lib'" "$(fixes_of ld-library-path)" "stray toolkit: fix keeps the rest"
LD_LIBRARY_PATH="$FAKE_DRIVER_DIR:$CUDAENV_ROOT/versions/12.1/lib64" doctor
assert_eq ok "$(severity_of ld-library-path)" "own toolkit on LD_LIBRARY_PATH is fine"

# A cuda.toml asking for a version that is not installed.
mkdir -p "$WORK/project" && cd "$WORK/project" || exit 1
printf '[cuda]\nversion = "12.6"\narch = ["8.9", "12.0"]\n' >cuda.toml
doctor
assert_eq 1 "$STATUS" "cuda.toml not installed: exit status"
assert_eq error "$(severity_of selection)" "cuda.toml not installed: verdict"
assert_contains "$(title_of selection)" "CUDA 12.6 is not installed (set by $WORK/project/cuda.toml)" "cuda.toml not installed: title"
assert_eq "cudaenv install 12.6
cudaenv use 12.4" "$(fixes_of selection)" "cuda.toml not installed: fixes"
# Installed, its arch list is checked against the toolkit.
install_toolkit 12.6
doctor
assert_eq ok "$(severity_of selection)" "cuda.toml installed"
assert_eq error "$(severity_of arch-list)" "cuda.toml arch 12.0 with 12.6"
assert_contains "$(fixes_of arch-list)" "# in $WORK/project/cuda.toml: arch = [\"8.9\"]" "cuda.toml arch fix"
# A broken cuda.toml is reported with its position, not a crash.
printf '[cuda\n' >cuda.toml
doctor
assert_eq error "$(severity_of selection)" "broken cuda.toml: verdict"
assert_contains "$(title_of selection)" "cuda.toml:1:" "broken cuda.toml: position"
cd "$WORK" || exit 1

# Python that cannot answer: reported, and the torch checks are skipped.
printf '#!/bin/sh\necho "Fatal Python error: init_fs_encoding" >&2\nexit 3\n' >"$FAKE_BIN/broken-python"
chmod +x "$FAKE_BIN/broken-python"
run_capture "$CUDAENV" doctor --json --python "$FAKE_BIN/broken-python"
JSON=$OUT
assert_eq warning "$(severity_of python)" "broken python: warning"
assert_contains "$(title_of python)" "exit status 3: Fatal Python error" "broken python: says why"
printf '#!/bin/sh\nexec sleep 30\n' >"$FAKE_BIN/stuck-python"
chmod +x "$FAKE_BIN/stuck-python"
run_capture "$CUDAENV" doctor --json --python "$FAKE_BIN/stuck-python" --timeout 0.5
JSON=$OUT
assert_eq 0 "$STATUS" "stuck python: not an error"
assert_contains "$(title_of python)" "no answer within 0.5 s" "stuck python: timed out"
run_capture "$CUDAENV" doctor --json --python "$WORK/no-such-python"
JSON=$OUT
assert_contains "$(title_of python)" "not found" "missing python: says so"

# Colour only on a terminal, and never with NO_COLOR.
if command -v script >/dev/null 2>&1; then
  TTY_OUT=$(env -u NO_COLOR script -qec "'$CUDAENV' doctor --python '$PYTHON'" /dev/null)
  assert_contains "$TTY_OUT" $'\033[32m✓' "tty: passed checks in green"
  TTY_OUT=$(NO_COLOR=1 script -qec "'$CUDAENV' doctor --python '$PYTHON'" /dev/null)
  assert_not_contains "$TTY_OUT" $'\033[' "tty with NO_COLOR: plain"
fi

finish
