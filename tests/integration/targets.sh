# Targets (issue 39): `target save` reads the stand-in driver as doctor does; then, with no driver
# at all, a project on that target resolves for it: the environment of exec, env and the hook,
# doctor, torch and install's warning; the shared root is read-only; hostile target files are
# clear errors; and the real uv from PyPI asks for the index that fits the target's driver.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
. "$(dirname "$0")/lib_doctor.sh"
unset CUDAENV_TARGET UV_CUDA_DRIVER_VERSION CONDA_OVERRIDE_CUDA NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION \
  NV_VARIANT_PROVIDER_FORCE_SM_ARCH UV_TORCH_BACKEND CUDAENV_DRIVER_VERSION

TARGETS="$CUDAENV_ROOT/targets"

# --- save, on "GPU machines" (the stand-in driver) ---
use_driver 12020 535.104.05 "NVIDIA A100-SXM4-80GB:8.0;NVIDIA A100-SXM4-80GB:8.0"
run_capture "$CUDAENV" target save a100
assert_eq 0 "$STATUS" "save a100: $ERR"
assert_contains "$OUT" "saved target a100: driver 535.104.05, CUDA 12.2, NVIDIA A100-SXM4-80GB (8.0), NVIDIA A100-SXM4-80GB (8.0)" "save a100: what it read"
check "a100.toml written" test -f "$TARGETS/a100.toml"
assert_contains "$(cat "$TARGETS/a100.toml")" "version = '535.104.05'" "a100.toml: the driver"
assert_contains "$(cat "$TARGETS/a100.toml")" "cuda = '12.2'" "a100.toml: the CUDA it runs"
assert_contains "$(cat "$TARGETS/a100.toml")" "compute_capability = '8.0'" "a100.toml: the GPUs"
use_driver 13000 580.65.06 "NVIDIA H100 80GB HBM3:9.0"
run_capture "$CUDAENV" target save h100
assert_eq 0 "$STATUS" "save h100: $ERR"
assert_contains "$OUT" "driver 580.65.06, CUDA 13.0, NVIDIA H100 80GB HBM3 (9.0)" "save h100: what it read"

# --- no driver from here on ---
no_driver
if [ -e /sys/module/nvidia ] || [ -e /proc/driver/nvidia ] || ldconfig -p 2>/dev/null | grep -q libcuda.so.1; then
  echo "this machine has an NVIDIA driver: the no-driver cases run against it" >&2
else
  run_capture "$CUDAENV" target save here
  assert_eq 1 "$STATUS" "save without a driver fails"
  assert_contains "$ERR" "cannot read this machine's NVIDIA driver version" "save without a driver: why"
  assert_contains "$ERR" "--driver 535.104.05 --gpu 8.0" "save without a driver: how to write one by hand"
  check "nothing written" test ! -e "$TARGETS/here.toml"
fi
run_capture "$CUDAENV" target save v100 --driver 535.104.05 --gpu 7.0 --gpu 7.0
assert_eq 0 "$STATUS" "save by hand: $ERR"
assert_contains "$OUT" "driver 535.104.05, CUDA 12.2, (7.0), (7.0)" "save by hand: the CUDA from the shipped facts"
run_capture "$CUDAENV" target save bad --driver 535 --gpu 8
assert_eq 2 "$STATUS" "a bad --driver is a usage error"
run_capture "$CUDAENV" target save bad --driver 535.104.05 --gpu 8
assert_eq 2 "$STATUS" "a bad --gpu is a usage error"
assert_contains "$ERR" "--gpu 8 is not a compute capability" "a bad --gpu: named"
run_capture "$CUDAENV" target save ../x --driver 535.104.05
assert_eq 2 "$STATUS" "a name that is no file name"
check "no file outside targets/" test ! -e "$CUDAENV_ROOT/x.toml"

# --- list, show, remove; the shared root ---
SHARED="$WORK/shared"
mkdir -p "$SHARED/targets"
printf '[driver]\nversion = "570.86.10"\ncuda = "12.8"\n[[gpus]]\nname = "NVIDIA B200"\ncompute_capability = "10.0"\n' >"$SHARED/targets/b200.toml"
cp "$TARGETS/h100.toml" "$SHARED/targets/h100.toml"
chmod -R a-w "$SHARED"
export CUDAENV_SHARED_ROOT="$SHARED"
run_capture "$CUDAENV" target list
assert_eq 0 "$STATUS" "list: $ERR"
assert_contains "$OUT" "  a100  driver 535.104.05, CUDA 12.2" "list: a100"
assert_contains "$OUT" "  b200  driver 570.86.10, CUDA 12.8, NVIDIA B200 (10.0)  (shared: $SHARED/targets)" "list: the shared root's"
assert_contains "$OUT" "(hidden by yours)" "list: the shared h100 behind the user's"
run_capture "$CUDAENV" target show a100
assert_contains "$OUT" "file: $TARGETS/a100.toml" "show: the file"
assert_contains "$OUT" "UV_CUDA_DRIVER_VERSION=535.104.05" "show: what it exports"
run_capture "$CUDAENV" target remove b200
assert_eq 1 "$STATUS" "the shared root's target cannot be removed"
assert_contains "$ERR" "target b200 is in the shared root ($SHARED/targets/b200.toml), which cudaenv only reads" "remove shared: why"
check "the shared file stays" test -f "$SHARED/targets/b200.toml"
run_capture "$CUDAENV" target remove v100
assert_eq 0 "$STATUS" "remove v100: $ERR"
check "v100.toml removed" test ! -e "$TARGETS/v100.toml"
run_capture "$CUDAENV" target show v100
assert_contains "$ERR" "no target named v100 (saved: a100, h100, b200)" "a removed target is gone"

# --- a project on a100, no driver ---
install_toolkit 12.4
install_toolkit 13.0
PROJ="$WORK/proj"
mkdir -p "$PROJ"
cd "$PROJ" || exit 1
printf '[cuda]\nversion = "12.4"\n\n[target]\nname = "a100"\n' >cuda.toml
run_capture "$CUDAENV" current
assert_eq "12.4 (set by $PROJ/cuda.toml)
target a100 (set by $PROJ/cuda.toml)" "$OUT" "current shows the target and its origin"
assert_contains "$("$CUDAENV" config)" "($PROJ/cuda.toml) target = a100" "config: the target from cuda.toml"
assert_contains "$(CUDAENV_TARGET=h100 "$CUDAENV" config)" "(CUDAENV_TARGET) target = h100" "config: CUDAENV_TARGET before cuda.toml"
assert_eq a100 "$("$CUDAENV" current --json | jq -r .target.name)" "current --json: the target"

exported() { "$CUDAENV" exec -- printenv "$1"; }
assert_eq 535.104.05 "$(exported UV_CUDA_DRIVER_VERSION)" "exec: UV_CUDA_DRIVER_VERSION"
assert_eq 12.2 "$(exported CONDA_OVERRIDE_CUDA)" "exec: CONDA_OVERRIDE_CUDA"
assert_eq 8.0 "$(exported TORCH_CUDA_ARCH_LIST)" "exec: TORCH_CUDA_ARCH_LIST"
assert_eq 80 "$(exported CUDAARCHS)" "exec: CUDAARCHS"
assert_eq 12.2 "$(exported NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION)" "exec: the variant provider's CUDA"
assert_eq 8.0 "$(exported NV_VARIANT_PROVIDER_FORCE_SM_ARCH)" "exec: the variant provider's arch"
assert_eq 11.8 "$(CONDA_OVERRIDE_CUDA=11.8 exported CONDA_OVERRIDE_CUDA)" "exec: a variable the user set is kept"
assert_eq 580.65.06 "$(CUDAENV_TARGET=h100 exported UV_CUDA_DRIVER_VERSION)" "exec: CUDAENV_TARGET=h100"
ENV_TEXT=$("$CUDAENV" env --shell bash)
assert_contains "$ENV_TEXT" "export UV_CUDA_DRIVER_VERSION='535.104.05';" "env: UV_CUDA_DRIVER_VERSION"
assert_contains "$ENV_TEXT" "export TORCH_CUDA_ARCH_LIST='8.0';" "env: TORCH_CUDA_ARCH_LIST"
HOOK_TEXT=$("$CUDAENV" hook-env --shell bash 2>/dev/null)
assert_contains "$HOOK_TEXT" "export UV_CUDA_DRIVER_VERSION='535.104.05';" "hook: UV_CUDA_DRIVER_VERSION"
assert_contains "$HOOK_TEXT" "export CONDA_OVERRIDE_CUDA='12.2';" "hook: CONDA_OVERRIDE_CUDA"
assert_contains "$HOOK_TEXT" "$TARGETS/a100.toml" "hook: the target's file is watched"
# A hooked bash: the prompt applies the target, and a CUDAENV_TARGET exported there takes over at
# the next prompt, as CUDAENV_VERSION does (the prompt's fast path compares both).
RESULTS="$WORK/shell-results"
cat >"$WORK/scenario" <<SCENARIO
PS1=''; PS2=''
r() { printf '%s=%s\n' "\$1" "\$2" >>"$RESULTS"; }
eval "\$("$CUDAENV" init bash)"
cd "$PROJ"
r project "\$UV_CUDA_DRIVER_VERSION"
_cudaenv_unchanged && r fast taken
export CUDAENV_TARGET=h100
r exported "\$UV_CUDA_DRIVER_VERSION \$CONDA_OVERRIDE_CUDA"
unset CUDAENV_TARGET
r unset "\$UV_CUDA_DRIVER_VERSION"
SCENARIO
setsid -w bash --norc --noprofile -i <"$WORK/scenario" >"$WORK/shell-out" 2>"$WORK/shell-err"
shell_result() { grep "^$1=" "$RESULTS" | tail -n 1 | cut -d= -f2-; }
assert_eq 535.104.05 "$(shell_result project)" "hooked bash: the project's target"
assert_eq taken "$(shell_result fast)" "hooked bash: the fast path holds while nothing changes"
assert_eq "580.65.06 13.0" "$(shell_result exported)" "hooked bash: export CUDAENV_TARGET=h100 applies at the next prompt"
assert_eq 535.104.05 "$(shell_result unset)" "hooked bash: unset CUDAENV_TARGET goes back to cuda.toml's"
printf '[cuda]\nversion = "12.4"\narch = ["9.0a"]\n\n[target]\nname = "a100"\n' >cuda.toml
assert_eq 9.0a "$(exported TORCH_CUDA_ARCH_LIST)" "cuda.toml's arch wins over the target's GPUs"
assert_eq 535.104.05 "$(exported UV_CUDA_DRIVER_VERSION)" "with arch: the driver still the target's"
printf '[cuda]\nversion = "12.4"\n\n[target]\nname = "a100"\n' >cuda.toml
# The shims stay minimal: a toolkit program run through its shim gets none of a target's variables.
printf '#!/bin/sh\nprintenv UV_CUDA_DRIVER_VERSION || echo unset\n' >"$CUDAENV_ROOT/versions/12.4/bin/show-driver"
chmod +x "$CUDAENV_ROOT/versions/12.4/bin/show-driver"
"$CUDAENV" rehash >/dev/null 2>&1
assert_eq unset "$("$CUDAENV_ROOT/shims/show-driver")" "a shim's program gets no target variable"

# doctor: no GPU here; every check against the target's driver and GPUs.
doctor
assert_contains "$(title_of driver)" "no GPU here; checking for target a100 (set by $PROJ/cuda.toml): driver 535.104.05, CUDA 12.2, 2 GPU(s)" "doctor: the target and this machine"
assert_eq a100 "$(probe .probes.driver.target.name)" "doctor --json: the target"
assert_eq 8.0 "$(probe '.probes.driver.gpus[0].compute_capability')" "doctor: the target's GPUs are the ones checked"
assert_eq warning "$(severity_of driver-toolkit)" "doctor: 12.4 runs only in part on the target's 535 driver (CUDA 12.2)"
CUDAENV_VERSION=13.0 doctor
assert_eq error "$(severity_of driver-toolkit)" "doctor: 13.0 cannot run on the target's driver"
assert_contains "$(title_of driver-toolkit)" "needs a newer driver: this one runs CUDA up to 12.2" "doctor: against the target's CUDA"
run_capture "$CUDAENV" doctor
assert_contains "$OUT" "no GPU here; checking for target a100" "doctor's report says so too"

# torch: the same choice as naming the target's driver and GPUs by hand.
run_capture "$CUDAENV" torch
TARGET_CHOICE=$OUT
assert_contains "$ERR" "driver 535.104.05 (target a100, set by $PROJ/cuda.toml)" "torch: the target's driver"
run_capture "$CUDAENV" torch --driver 535.104.05 --arch 8.0
assert_eq "$OUT" "$TARGET_CHOICE" "torch: as if the target's driver and GPUs were given"

# install warns against the target's driver ceiling.
add_fake_release 13.0.2
start_mirror
install_from_mirror 13.0.2
assert_eq 0 "$STATUS" "install under a target: $ERR"
assert_contains "$ERR" "CUDA 13.0.2 needs NVIDIA driver >= 580.65.06, and target a100's driver 535.104.05 (set by $PROJ/cuda.toml) cannot run it" "install: the target's ceiling"
stop_mirror

# --- hostile target files and names ---
cp "$TARGETS/a100.toml" "$WORK/a100.good"
for body in '[driver]\nversion = "x"\n' '[driver]\nversion = "535.1"\n[[gpus]]\ncompute_capability = "8"\n' \
  'gpus = "all"\n' '\xff\xfe[driver' '[driver]\nversion = "535.1"\n[[gpus]]\ncompute_capability = "99999999999999999999.0"\n'; do
  printf "$body" >"$TARGETS/a100.toml"
  run_capture "$CUDAENV" exec -- true
  assert_eq 1 "$STATUS" "hostile file ($body): exec refuses"
  assert_contains "$ERR" "$TARGETS/a100.toml" "hostile file ($body): the error names the file"
  assert_not_contains "$ERR" "internal error" "hostile file ($body): no crash"
  run_capture "$CUDAENV" doctor --json
  assert_contains "$ERR" "$TARGETS/a100.toml" "hostile file ($body): doctor names the file"
  assert_contains "$("$CUDAENV" hook-env --shell bash 2>&1 >/dev/null)" "warning: the target" "hostile file ($body): the prompt warns"
done
head -c 2000000 /dev/zero | tr '\0' '#' >"$TARGETS/a100.toml"
run_capture "$CUDAENV" env
assert_eq 1 "$STATUS" "a 2 MB target file is refused"
assert_contains "$ERR" "$TARGETS/a100.toml" "a 2 MB file: named"
cp "$WORK/a100.good" "$TARGETS/a100.toml"
run_capture env CUDAENV_TARGET=../../etc/passwd "$CUDAENV" exec -- true
assert_eq 1 "$STATUS" "CUDAENV_TARGET that is a path"
assert_contains "$ERR" 'CUDAENV_TARGET: "../../etc/passwd" is not a target name' "CUDAENV_TARGET path: named"
run_capture env CUDAENV_TARGET=gone "$CUDAENV" exec -- true
assert_contains "$ERR" "the target CUDAENV_TARGET=gone: no target named gone" "CUDAENV_TARGET not saved: named"

# --- the real uv, through exec, with no driver: the index for the target's driver ---
PATH="$PATH${CUDAENV_TEST_TOOLS:+:$CUDAENV_TEST_TOOLS}"
if ! command -v uv >/dev/null 2>&1; then
  echo "uv is not installed (test.sh puts it in CUDAENV_TEST_TOOLS): uv's --torch-backend auto was not run"
  finish
fi
python3 -c 'import venv' 2>/dev/null || skip "python3 with venv is needed"
python3 -m venv "$WORK/venv"
# The PyTorch index is not reachable from here, so what uv asked for is in its error.
uv_index() {
  env CUDAENV_TARGET="$1" "$CUDAENV" exec -- env UV_NO_CACHE=1 UV_HTTP_RETRIES=0 UV_HTTP_TIMEOUT=10 \
    HTTPS_PROXY=http://127.0.0.1:9 UV_DEFAULT_INDEX=http://127.0.0.1:9/no-pypi \
    uv pip install torch --torch-backend auto --dry-run --python "$WORK/venv/bin/python" 2>&1 |
    grep -o 'https://download.pytorch.org/whl/[a-z0-9]*' | head -n 1
}
A100_INDEX=$(uv_index a100)
H100_INDEX=$(uv_index h100)
echo "uv under a100: $A100_INDEX; under h100: $H100_INDEX"
assert_contains "$A100_INDEX" "https://download.pytorch.org/whl/cu12" "uv under a100 (535): a cu12x index"
assert_contains "$H100_INDEX" "https://download.pytorch.org/whl/cu13" "uv under h100 (580): a cu13x index"
finish
