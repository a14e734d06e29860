#!/usr/bin/env bash
# A real torch CUDA extension built with the project's host compiler: the real torch from PyPI in
# a venv, the system CUDA 13.0 selected with `[cuda] host_compiler = "gcc-12"`, and torch's
# BuildExtension run under `cudaenv exec`. Wrappers named gcc-12 and g++-12 record each call and
# run the machine's gcc and g++ (nothing is installed): torch passes $CC to nvcc as -ccbin and
# compiles and links the host side with $CXX, so both must show up, and the extension must load.
#
# The venv is built once into $E2E_CACHE (keyed by torch, Python and the wheel set) and reused;
# the wheels are the ones tests/e2e/torch_deepspeed.sh keeps there too.
. "$(dirname "$0")/../integration/lib.sh"
require_e2e

TORCH=2.15.0
SYSTEM_CUDA=/usr/local/cuda-13.0
WHEELS="$E2E_CACHE/wheels"
[ -x "$SYSTEM_CUDA/bin/nvcc" ] || skip "the real CUDA 13.0 is not at $SYSTEM_CUDA"
command -v gcc >/dev/null && command -v g++ >/dev/null || skip "gcc and g++ are not installed"
[ "$(gcc -dumpversion | cut -d. -f1)" -le 15 ] || skip "this machine's gcc is newer than CUDA 13.0 accepts"
python3 -c 'import venv, ensurepip' 2>/dev/null || skip "python3 with venv and ensurepip is needed"
PY_TAG=$(python3 -c 'import sys; print(f"{sys.version_info[0]}{sys.version_info[1]}")')

if ! ls "$WHEELS"/torch-"$TORCH"-cp"$PY_TAG"-*.whl >/dev/null 2>&1; then
  mkdir -p "$WHEELS"
  python3 -m pip download -q -d "$WHEELS" "torch==$TORCH" setuptools >"$WORK/download.log" 2>&1 ||
    skip "torch $TORCH (cp$PY_TAG) is not in $WHEELS and PyPI did not give it: $(tail -1 "$WORK/download.log")"
fi
WHEEL_SET=$(ls "$WHEELS" | sha256sum | cut -c1-12)
VENV="$E2E_CACHE/venv-torch-$TORCH-cp$PY_TAG-$WHEEL_SET"
PY="$VENV/bin/python"
if [ "${CUDAENV_E2E_FRESH:-}" = 1 ] || [ ! -e "$VENV/.complete" ]; then
  echo "building $VENV"
  { rm -rf "$VENV" && python3 -m venv "$VENV" &&
    "$VENV/bin/pip" install -q --no-index --find-links "$WHEELS" "torch==$TORCH" setuptools && touch "$VENV/.complete"; } \
    >"$WORK/venv.log" 2>&1 || { cat "$WORK/venv.log" >&2; fail "build the venv with torch $TORCH"; finish; }
fi

# The compilers the project names, as wrappers that record their calls.
CALLS="$WORK/compiler-calls"
mkdir -p "$WORK/compilers"
for pair in gcc-12:gcc g++-12:g++; do
  printf '#!/bin/sh\necho "%s $*" >>"%s"\nexec %s "$@"\n' "${pair%%:*}" "$CALLS" "$(command -v "${pair#*:}")" \
    >"$WORK/compilers/${pair%%:*}"
  chmod +x "$WORK/compilers/${pair%%:*}"
done
export PATH="$CUDAENV_ROOT/shims:$WORK/compilers:$PATH"
mkdir -p "$WORK/project/ext" && cd "$WORK/project" || exit 1
check "cudaenv add $SYSTEM_CUDA" "$CUDAENV" add "$SYSTEM_CUDA"
check "cudaenv use 13.0 --host-compiler gcc-12" "$CUDAENV" use 13.0 --host-compiler gcc-12
# One arch keeps the build short.
sed -i 's/^\[cuda\]$/[cuda]\narch = ["8.0"]/' cuda.toml

cat >ext/setup.py <<'PY'
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension
setup(name="tiny_cuda", ext_modules=[CUDAExtension("tiny_cuda", ["tiny.cpp", "tiny_kernel.cu"])],
      cmdclass={"build_ext": BuildExtension})
PY
cat >ext/tiny_kernel.cu <<'CU'
#include <cuda_runtime.h>
__global__ void add_one(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
int built_with_cuda() { return CUDART_VERSION; }
int built_by_gcc() { return __GNUC__; }
CU
cat >ext/tiny.cpp <<'CPP'
#include <torch/extension.h>
int built_with_cuda();
int built_by_gcc();
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("built_with_cuda", &built_with_cuda);
  m.def("built_by_gcc", &built_by_gcc);
}
CPP
: >"$CALLS"
(cd ext && "$CUDAENV" exec -- "$PY" setup.py build_ext --inplace) >"$WORK/ext-build.log" 2>&1
status=$?
[ "$status" -eq 0 ] || tail -30 "$WORK/ext-build.log" >&2
assert_eq 0 "$status" "torch's BuildExtension builds the extension under the pin"
check "nvcc compiled the .cu's host side with gcc-12 (torch's -ccbin \$CC)" grep -q '^gcc-12 .*-x c++' "$CALLS"
check "nvcc was given -ccbin gcc-12" grep -q -- '-ccbin gcc-12' "$WORK/ext-build.log"
check "the host .cpp was compiled with g++-12 (\$CXX)" grep -q '^g++-12 .*tiny\.cpp' "$CALLS"
check "the extension was linked with g++-12" grep -q '^g++-12 .*-shared' "$CALLS"
assert_not_contains "$(cat "$WORK/ext-build.log")" "is not compatible with the compiler Pytorch was built with" \
  "torch accepts the compiler"
assert_eq "13000 $(gcc -dumpversion | cut -d. -f1)" \
  "$(cd ext && "$PY" -c 'import torch, tiny_cuda; print(tiny_cuda.built_with_cuda(), tiny_cuda.built_by_gcc())' 2>/dev/null)" \
  "the extension loads: its .cu built with CUDA 13.0's headers and the pinned gcc"
finish
