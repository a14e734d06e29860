#!/usr/bin/env bash
# The seed failure for real, and cudaenv fixing it: the real torch from PyPI (its default build,
# CUDA 13.2) and the real DeepSpeed in a venv, with the system CUDA 13.0 selected.
#
# Which checks fail, and when (read from the packages this suite installs):
# - DeepSpeed 0.19.8, op_builder/builder.py: CUDAOpBuilder.builder() (what setup.py calls for each
#   DS_BUILD_<OP>=1; jit_load() does not call it) runs assert_no_cuda_mismatch, which raises
#   CUDAMismatchException unless nvcc's major.minor equals torch.version.cuda's or both are in
#   cuda_minor_mismatch_ok, which lists 10, 11 and 12 only: 13.0 against 13.2 is refused.
#   The op is fused_adam (a CUDAOpBuilder); cpu_adam is a CPUOpBuilder on CUDA and checks nothing.
# - torch 2.15.0, torch/utils/cpp_extension.py: _check_cuda_version, called from BuildExtension only,
#   raises RuntimeError when the majors differ and only warns when the minors do. Every nvcc this
#   machine can have is 13.x (the system 13.0; PyPI's nvidia-cuda-nvcc-cu12/-cu11 wheels carry
#   ptxas but no nvcc) and PyPI's torch 2.15.0 is built for 13.2, so the cross-major refusal
#   cannot be reproduced with real toolkits here: the suite shows the minor-mismatch warning.
#
# The venv is built once into $E2E_CACHE (keyed by torch, DeepSpeed, Python and the wheel set) and
# reused; CUDAENV_E2E_FRESH=1 rebuilds it (a cold run). Everything else lives in $WORK.
. "$(dirname "$0")/../integration/lib.sh"
require_e2e

TORCH=2.15.0
DEEPSPEED=0.19.8
SYSTEM_CUDA=/usr/local/cuda-13.0
WHEELS="$E2E_CACHE/wheels"
[ -x "$SYSTEM_CUDA/bin/nvcc" ] || skip "the real CUDA 13.0 is not at $SYSTEM_CUDA"
command -v jq >/dev/null || skip "jq is needed to read doctor --json"
PY_TAG=$(python3 -c 'import sys; print(f"{sys.version_info[0]}{sys.version_info[1]}")')
python3 -c 'import venv, ensurepip' 2>/dev/null || skip "python3 with venv and ensurepip is needed"

# The fix installs a toolkit from the index: without one the suite cannot show it.
INDEX=${CUDAENV_E2E_INDEX:-https://pypi.org/simple}
curl -sf -o /dev/null -m 30 -H 'Accept: application/vnd.pypi.simple.v1+json' "$INDEX/cuda-toolkit/" ||
  skip "$INDEX/cuda-toolkit/ is not reachable from here (set CUDAENV_E2E_INDEX to a proxy of PyPI)"

# The wheels: from the cache, else from PyPI into it (skipped when neither has them).
fetch_wheels() {
  mkdir -p "$WHEELS"
  python3 -m pip download -q -d "$WHEELS" "torch==$TORCH" setuptools >"$WORK/download.log" 2>&1 &&
    python3 -m pip download -q -d "$WHEELS" --no-deps --no-binary deepspeed "deepspeed==$DEEPSPEED" >>"$WORK/download.log" 2>&1 &&
    tar -xzOf "$WHEELS/deepspeed-$DEEPSPEED.tar.gz" "deepspeed-$DEEPSPEED/requirements/requirements.txt" >"$WORK/ds-requirements.txt" &&
    python3 -m pip download -q -d "$WHEELS" -r "$WORK/ds-requirements.txt" >>"$WORK/download.log" 2>&1
}
if ! ls "$WHEELS"/torch-"$TORCH"-cp"$PY_TAG"-*.whl "$WHEELS/deepspeed-$DEEPSPEED.tar.gz" >/dev/null 2>&1; then
  fetch_wheels || skip "torch $TORCH (cp$PY_TAG) and DeepSpeed $DEEPSPEED are not in $WHEELS and PyPI did not give them: $(tail -1 "$WORK/download.log")"
fi

WHEEL_SET=$(ls "$WHEELS" | sha256sum | cut -c1-12)
VENV="$E2E_CACHE/venv-torch-$TORCH-deepspeed-$DEEPSPEED-cp$PY_TAG-$WHEEL_SET"
PY="$VENV/bin/python"
venv_works() {
  [ -e "$VENV/.complete" ] &&
    [ "$("$PY" -c 'import importlib.metadata as m; print(m.version("torch"), m.version("deepspeed"))' 2>/dev/null)" = "$TORCH $DEEPSPEED" ]
}
# DeepSpeed's sdist imports torch in its setup.py: built without isolation, with setuptools there.
build_venv() {
  rm -rf "$VENV"
  python3 -m venv "$VENV" &&
    "$VENV/bin/pip" install -q --no-index --find-links "$WHEELS" "torch==$TORCH" setuptools &&
    DS_BUILD_OPS=0 "$VENV/bin/pip" install -q --no-index --no-build-isolation --find-links "$WHEELS" "deepspeed==$DEEPSPEED" &&
    touch "$VENV/.complete"
}
started=$(date +%s)
if [ "${CUDAENV_E2E_FRESH:-}" = 1 ] || ! venv_works; then
  echo "building $VENV"
  build_venv >"$WORK/venv.log" 2>&1 || { cat "$WORK/venv.log" >&2; fail "build the venv with torch $TORCH and DeepSpeed $DEEPSPEED"; finish; }
fi
echo "venv ready in $(($(date +%s) - started)) s"
TORCH_CUDA=$("$PY" -c 'import torch; print(torch.version.cuda)' 2>/dev/null)
TORCH_VERSION=$("$PY" -c 'import torch; print(torch.__version__)' 2>/dev/null)  # 2.15.0+cu132
assert_eq 13.2 "$TORCH_CUDA" "PyPI's torch $TORCH is built for CUDA 13.2"
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

# The toolkit wheels cudaenv downloads are kept between runs, as the pypi_real suite keeps them.
mkdir -p "$E2E_CACHE/cudaenv-cache" "$CUDAENV_ROOT"
ln -s "$E2E_CACHE/cudaenv-cache" "$CUDAENV_ROOT/cache"

# The project: the system CUDA 13.0 registered and selected, against torch's 13.2.
export PATH="$CUDAENV_ROOT/shims:$PATH"
mkdir -p "$WORK/project" && cd "$WORK/project" || exit 1
check "cudaenv add $SYSTEM_CUDA" "$CUDAENV" add "$SYSTEM_CUDA"
check "cudaenv use 13.0" "$CUDAENV" use 13.0
# One arch keeps the builds short, and with none named DeepSpeed targets 6.0-7.0, which CUDA 13 dropped.
sed -i 's/^\[cuda\]$/[cuda]\narch = ["8.0"]/' cuda.toml
assert_eq "8.0" "$("$CUDAENV" exec -- sh -c 'echo "$TORCH_CUDA_ARCH_LIST"')" "cuda.toml's arch reaches the builds"
assert_eq 13.0 "$("$CUDAENV" exec -- sh -c 'nvcc --version' | sed -n 's/.*release \([0-9.]*\),.*/\1/p')" "cudaenv exec runs the system nvcc 13.0"

# check_or_show LOG DESCRIPTION COMMAND...: check, with the end of LOG when it fails
check_or_show() {
  local log=$1 failures=$FAILURES
  shift
  check "$@"
  [ "$FAILURES" = "$failures" ] || tail -30 "$log" >&2
}

# DeepSpeed pre-building fused_adam, as `DS_BUILD_FUSED_ADAM=1 pip install deepspeed` does. With
# no GPU here DeepSpeed would pick its CPU accelerator: DS_ACCELERATOR=cuda picks the CUDA one.
# The wheel is built into $WORK, so the cached venv is left as it was.
build_fused_adam() {
  rm -rf "$WORK/ds-wheel"
  "$CUDAENV" exec -- env DS_ACCELERATOR=cuda DS_BUILD_OPS=0 DS_BUILD_FUSED_ADAM=1 \
    "$VENV/bin/pip" wheel -v --no-deps --no-index --no-build-isolation --no-cache-dir -w "$WORK/ds-wheel" \
    "$WHEELS/deepspeed-$DEEPSPEED.tar.gz" >"$WORK/ds-build.log" 2>&1
}
# A tiny CUDA extension built with torch's BuildExtension (python setup.py build_ext).
EXT="$WORK/project/ext"
mkdir -p "$EXT"
cat >"$EXT/setup.py" <<'PY'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
setup(name="tiny_cuda", ext_modules=[CUDAExtension("tiny_cuda", ["tiny.cpp", "tiny_kernel.cu"])],
      cmdclass={"build_ext": BuildExtension})
PY
cat >"$EXT/tiny_kernel.cu" <<'CU'
#include <cuda_runtime.h>
__global__ void add_one(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
int built_with_cuda() { return CUDART_VERSION; }  // from the toolkit's headers, at compile time
CU
cat >"$EXT/tiny.cpp" <<'CPP'
#include <torch/extension.h>
int built_with_cuda();
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("built_with_cuda", &built_with_cuda); }
CPP
build_extension() {
  rm -rf "$EXT/build" "$EXT"/tiny_cuda*.so
  (cd "$EXT" && "$CUDAENV" exec -- "$PY" setup.py build_ext --inplace) >"$WORK/ext-build.log" 2>&1
}
load_extension() { (cd "$EXT" && "$PY" -c 'import torch, tiny_cuda; print(tiny_cuda.built_with_cuda())' 2>/dev/null); }

echo "before the fix: DeepSpeed's fused_adam and the extension with nvcc 13.0"
build_fused_adam
ds_status=$?
check_or_show "$WORK/ds-build.log" "DeepSpeed's build of fused_adam fails with CUDA 13.0 against torch's 13.2" test "$ds_status" -ne 0
DS_REFUSAL=$(grep -o 'Installed CUDA version [0-9.]* does not match the version torch was compiled with [0-9.]*' "$WORK/ds-build.log" | head -1)
assert_eq "Installed CUDA version 13.0 does not match the version torch was compiled with 13.2" "$DS_REFUSAL" \
  "DeepSpeed's op builder refuses in its own words"
echo "  DeepSpeed said: $(grep -m1 -o 'deepspeed.ops.op_builder.builder.CUDAMismatchException: .*\|CUDAMismatchException: .*' "$WORK/ds-build.log")"
build_extension
ext_status=$?
TORCH_WARNING=$(grep -o 'The detected CUDA version (13.0) has a minor version mismatch with the version that was used to compile PyTorch (13.2).*' "$WORK/ext-build.log" | head -1)
assert_eq "The detected CUDA version (13.0) has a minor version mismatch with the version that was used to compile PyTorch (13.2). Most likely this shouldn't be a problem." \
  "$TORCH_WARNING" "torch's BuildExtension warns across minors (it refuses only across majors)"
echo "  torch said: $TORCH_WARNING"
check_or_show "$WORK/ext-build.log" "across minors the extension still builds" test "$ext_status" -eq 0
assert_eq 13000 "$(load_extension)" "and loads, its .cu compiled with CUDA 13.0's headers (CUDART_VERSION)"

# doctor, before: both versions, DeepSpeed's refusal and the fixes on both sides.
doctor_json() { run_capture "$CUDAENV" doctor --json --python "$PY" --timeout 300; JSON=$OUT; }
finding() { jq -r --arg id "$1" --arg field "$2" '[.findings[] | select(.id == $id) | .[$field] | if type == "array" then join("\n") else . end] | join("\n")' <<<"$JSON"; }
doctor_json
assert_eq 1 "$STATUS" "doctor fails before the fix"
assert_eq "" "$(jq -r .probes.python.problem <<<"$JSON")" "the real torch's warnings leave the probe's answer readable"
assert_eq "$TORCH_VERSION 13.2 $DEEPSPEED" "$(jq -r '"\(.probes.python.torch) \(.probes.python.torch_cuda) \(.probes.python.deepspeed)"' <<<"$JSON")" \
  "doctor reads the real torch and DeepSpeed"
assert_eq "13.2.86 9.26.0 2.30.7" "$(jq -r '"\(.probes.python.cuda_runtime) \(.probes.python.cudnn) \(.probes.python.nccl)"' <<<"$JSON")" \
  "what the real torch carries: its CUDA runtime, cuDNN and NCCL"
assert_eq "$(cd "$SITE" && ls -d nvidia_*.dist-info | sed 's/\.dist-info$//' | sort | tr '\n' ' ')" \
  "$(jq -r '[.probes.python.nvidia_wheels[] | "\(.name | gsub("-"; "_"))-\(.version)"] | sort | join(" ")' <<<"$JSON") " \
  "doctor lists exactly the nvidia-* wheels in the venv"
echo "  the Python probe took $(jq -r .probes.python.took_ms <<<"$JSON") ms"
assert_eq warning "$(finding toolkit-torch severity)" "doctor: toolkit 13.0 vs torch 13.2 is a minor mismatch"
assert_contains "$(finding toolkit-torch title)" "13.0" "doctor names the toolkit's CUDA"
assert_contains "$(finding toolkit-torch title)" "(CUDA 13.2)" "doctor names torch's CUDA"
assert_eq error "$(finding deepspeed-cuda severity)" "doctor: DeepSpeed refuses the pair"
assert_eq "DeepSpeed $DEEPSPEED refuses nvcc 13.0 with torch's CUDA 13.2" "$(finding deepspeed-cuda title)" "doctor says what DeepSpeed does"
FIXES=$(finding deepspeed-cuda fixes)
assert_contains "$FIXES" "cudaenv install 13.2 && cudaenv use 13.2" "the toolkit-side fix"
assert_contains "$FIXES" "-m pip install torch==" "the torch-side fix"

# The toolkit-side fix, from PyPI: torch's own CUDA, with the headers torch's CUDA code includes
# (ATen/cuda/CUDAContext.h pulls in cuBLAS, cuSPARSE and cuSOLVER).
echo "the fix: cudaenv install $TORCH_CUDA --source pypi --profile torch && cudaenv use $TORCH_CUDA"
started=$(date +%s)
"$CUDAENV" install "$TORCH_CUDA" --source pypi --index-url "$INDEX" --profile torch --keep-downloads >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log" >&2; fail "cudaenv install $TORCH_CUDA --source pypi"; }
echo "  installed in $(($(date +%s) - started)) s: $(tail -1 "$WORK/install.log")"
check "cudaenv use $TORCH_CUDA" "$CUDAENV" use "$TORCH_CUDA"
assert_eq "$TORCH_CUDA" "$("$CUDAENV" exec -- sh -c 'nvcc --version' | sed -n 's/.*release \([0-9.]*\),.*/\1/p')" "nvcc is now torch's CUDA"

echo "after the fix: the same op and extension with nvcc $TORCH_CUDA"
check_or_show "$WORK/ds-build.log" "DeepSpeed builds fused_adam with CUDA $TORCH_CUDA" build_fused_adam
assert_eq "" "$(grep -o 'does not match the version torch was compiled with' "$WORK/ds-build.log" | head -1)" "DeepSpeed no longer refuses"
OP=$(unzip -Z1 "$WORK/ds-wheel/deepspeed-$DEEPSPEED"-*.whl 2>/dev/null | grep 'deepspeed/ops/adam/fused_adam_op.*\.so$')
check "the DeepSpeed wheel carries the built fused_adam op ($OP)" test -n "$OP"
load_fused_adam() {
  (cd "$WORK" && unzip -qo "$WORK/ds-wheel/deepspeed-$DEEPSPEED"-*.whl "$OP" -d "$WORK/ds-op" &&
    "$PY" -c 'import importlib.util, sys, torch
spec = importlib.util.spec_from_file_location("fused_adam_op", sys.argv[1])
op = importlib.util.module_from_spec(spec); spec.loader.exec_module(op)
print("multi_tensor_adam" if hasattr(op, "multi_tensor_adam") else "no multi_tensor_adam")' "$WORK/ds-op/$OP" 2>/dev/null)
}
assert_eq multi_tensor_adam "$(load_fused_adam)" "the built fused_adam op loads (no GPU needed) and has its kernel entry"
check_or_show "$WORK/ext-build.log" "torch's BuildExtension builds the tiny extension with CUDA $TORCH_CUDA" build_extension
assert_not_contains "$(cat "$WORK/ext-build.log")" "mismatch" "torch no longer warns about a mismatch"
assert_eq 13020 "$(load_extension)" "the extension loads, its .cu compiled with CUDA 13.2's headers (CUDART_VERSION)"

# doctor, after: the toolkit findings pass; what is left is this machine's lack of a GPU driver.
doctor_json
assert_eq ok "$(finding toolkit-torch severity)" "doctor: toolkit and torch agree"
assert_eq ok "$(finding deepspeed-cuda severity)" "doctor: DeepSpeed accepts the pair"
assert_eq "DeepSpeed $DEEPSPEED accepts nvcc 13.2 with torch's CUDA 13.2" "$(finding deepspeed-cuda title)" "doctor says DeepSpeed accepts"
LEFT=$(jq -r '[.findings[] | select(.severity == "error" or .severity == "warning") | .id] | join(" ")' <<<"$JSON")
assert_eq "driver" "$LEFT" "after the fix only the missing driver is left (no GPU on this machine)"
echo "  left: $(jq -r '[.findings[] | select(.severity == "error" or .severity == "warning") | "\(.id): \(.title)"] | join("; ")' <<<"$JSON")"
finish
