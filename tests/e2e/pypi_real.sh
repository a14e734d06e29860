# A real toolkit from NVIDIA's wheels on PyPI (opt-in: CUDAENV_E2E=1): `install 13.2 --source
# pypi --profile minimal` into a temporary root, then the same small .cu compiled, linked (static
# and shared cudart) and cuobjdump'ed with it and with the system /usr/local/cuda-13.0 side by
# side, and `cudaenv doctor` run against it. The wheels stay in $E2E_CACHE/cudaenv-cache between runs.
. "$(dirname "$0")/../integration/lib.sh"
require_e2e
unset PIP_INDEX_URL PIP_CONFIG_FILE
INDEX=${CUDAENV_E2E_INDEX:-https://pypi.org/simple}
curl -sf -o /dev/null -m 30 -H 'Accept: application/vnd.pypi.simple.v1+json' "$INDEX/cuda-toolkit/" ||
  skip "$INDEX/cuda-toolkit/ is not reachable from here (set CUDAENV_E2E_INDEX to a proxy of PyPI)"
mkdir -p "$E2E_CACHE/cudaenv-cache" "$CUDAENV_ROOT"
ln -s "$E2E_CACHE/cudaenv-cache" "$CUDAENV_ROOT/cache"  # the wheels, kept with --keep-downloads

run_capture "$CUDAENV" install 13.2 --source pypi --index-url "$INDEX" --profile minimal --component cuda_cuobjdump \
  --component cuda_nvdisasm --keep-downloads
assert_eq 0 "$STATUS" "install 13.2 from PyPI: $ERR"
echo "$ERR" | tail -1
LABEL=$(ls "$CUDAENV_ROOT/versions" | grep '^13\.2\.' | head -1)
TOOLKIT="$CUDAENV_ROOT/versions/$LABEL"
check "a 13.2.z label" test -n "$LABEL"
assert_contains "$("$TOOLKIT/bin/nvcc" --version)" "release 13.2" "the wheel's nvcc runs"

cat >"$WORK/saxpy.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
int main() {
  float* x = nullptr;
  cudaError_t status = cudaMalloc(&x, 16 * sizeof(float));
  std::printf("cudaMalloc: %s\n", cudaGetErrorString(status));
  if (status == cudaSuccess) {
    saxpy<<<1, 16>>>(16, 2.0f, x, x);
    cudaFree(x);
  }
  return 0;
}
CU
build_with() {  # build_with TOOLKIT_ROOT NAME: compile, link (static and shared cudart), list the cubins
  local root=$1 name=$2
  # The system 13.0 has no cuobjdump: the wheel toolkit's reads both sides' binaries.
  mkdir -p "$WORK/$name"
  check "$name: nvcc compiles and links saxpy.cu" \
    "$root/bin/nvcc" -arch=sm_90 -o "$WORK/$name/saxpy" "$WORK/saxpy.cu"
  check "$name: links against the shared cudart" \
    "$root/bin/nvcc" -arch=sm_90 -cudart shared -o "$WORK/$name/saxpy_shared" "$WORK/saxpy.cu"
  assert_contains "$(readelf -d "$WORK/$name/saxpy_shared")" "libcudart.so.13" "$name: needs libcudart.so.13"
  "$TOOLKIT/bin/cuobjdump" --list-elf "$WORK/$name/saxpy" >"$WORK/$name/elf.txt" 2>&1
  assert_contains "$(cat "$WORK/$name/elf.txt")" "sm_90" "$name: cuobjdump lists the sm_90 cubin"
  "$TOOLKIT/bin/cuobjdump" -sass "$WORK/$name/saxpy" >"$WORK/$name/sass.txt" 2>&1
  assert_contains "$(cat "$WORK/$name/sass.txt")" "saxpy" "$name: the kernel's SASS"
  "$WORK/$name/saxpy" >"$WORK/$name/run.txt" 2>&1  # without a GPU it says so; it must not fail to load
  assert_contains "$(cat "$WORK/$name/run.txt")" "cudaMalloc:" "$name: the program starts"
}
build_with "$TOOLKIT" pypi
if [ -x /usr/local/cuda-13.0/bin/nvcc ]; then
  build_with /usr/local/cuda-13.0 system
  # The same kernel from both toolkits: the same entry point in each one's cubin.
  assert_eq "$(grep -c 'Function : ' "$WORK/system/sass.txt")" "$(grep -c 'Function : ' "$WORK/pypi/sass.txt")" \
    "as many kernels in the 13.0 and the 13.2 binary"
  assert_contains "$("$TOOLKIT/bin/nvcc" --version)" "V13.2" "the wheel toolkit is 13.2"
  assert_contains "$(/usr/local/cuda-13.0/bin/nvcc --version)" "V13.0" "beside the system 13.0"
else
  echo "NOTE: /usr/local/cuda-13.0 is absent here: the side-by-side half is skipped"
fi

# Through the shims and cudaenv's own view of it.
assert_contains "$(CUDAENV_VERSION=$LABEL "$CUDAENV_ROOT/shims/nvcc" --version)" "release 13.2" "the nvcc shim"
run_capture env CUDAENV_VERSION="$LABEL" PATH="$CUDAENV_ROOT/shims:$PATH" "$CUDAENV" doctor
assert_not_contains "$OUT$ERR" "internal error" "doctor runs"
assert_contains "$OUT" "$LABEL" "doctor names the toolkit"
assert_contains "$OUT" "$CUDAENV_ROOT/shims/nvcc" "doctor finds the shim first on PATH"
echo "$OUT"
finish
