# The real CUDA 13.0 toolkit through cudaenv: register, pin, compile, link and run a .cu
# program through the nvcc shim. No GPU here, so the program reports that no driver is
# present, which shows it ran against the toolkit's cudart.
. "$(dirname "$0")/lib.sh"

REAL=/usr/local/cuda-13.0
[ -x "$REAL/bin/nvcc" ] || skip "$REAL/bin/nvcc is absent; this test needs the real CUDA 13.0 toolkit"

run_capture "$CUDAENV" add "$REAL"
assert_eq 0 "$STATUS" "add the real toolkit"
assert_contains "$ERR" "registered CUDA 13.0 -> $REAL" "its version is read from cuda.h"
export PATH="$CUDAENV_ROOT/shims:$PATH"
mkdir -p "$WORK/app"
cd "$WORK/app"
run_capture "$CUDAENV" use 13.0
assert_eq 0 "$STATUS" "use 13.0"
assert_contains "$(nvcc --version)" "release 13.0" "nvcc through the shim is 13.0"
assert_eq "$REAL/bin/nvcc" "$("$CUDAENV" which nvcc)" "which nvcc is the real one"

cat >hello.cu <<'CU'
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(int* out) { out[threadIdx.x] = static_cast<int>(threadIdx.x); }

int main() {
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  int devices = 0;
  cudaError_t status = cudaGetDeviceCount(&devices);
  std::printf("runtime %d\n", runtime);
  if (status != cudaSuccess) {
    std::printf("no device: %s\n", cudaGetErrorString(status));
    return 0;
  }
  int* buffer = nullptr;
  cudaMalloc(&buffer, 32 * sizeof(int));
  fill<<<1, 32>>>(buffer);
  cudaDeviceSynchronize();
  std::printf("ran on %d device(s)\n", devices);
  return 0;
}
CU
run_capture nvcc -o hello hello.cu
assert_eq 0 "$STATUS" "nvcc compiles and links through the shim: $ERR"
# Called by its full path (as CMake does with CUDACXX), nvcc still finds nvcc.profile.
run_capture "$CUDAENV_ROOT/shims/nvcc" -c -o hello_full.o hello.cu
assert_eq 0 "$STATUS" "nvcc through the shim's full path: $ERR"
check "the program links the toolkit's cudart statically or from the toolkit" test -x hello
run_capture ./hello
assert_eq 0 "$STATUS" "the program runs"
assert_contains "$OUT" "runtime 13000" "it reports CUDA runtime 13.0"
case "$OUT" in
  *"ran on"*) ;;  # a machine with a GPU
  *) assert_contains "$OUT" "no device:" "without a GPU it reports the missing driver/device" ;;
esac

# Dynamic cudart: the run needs LD_LIBRARY_PATH, which `cudaenv exec` provides.
run_capture nvcc -cudart shared -o hello_shared hello.cu
assert_eq 0 "$STATUS" "nvcc -cudart shared"
run_capture "$CUDAENV" exec ./hello_shared
assert_eq 0 "$STATUS" "exec runs the shared-cudart program"
assert_contains "$OUT" "runtime 13000" "shared cudart from the toolkit"
check "hello_shared resolves libcudart from the toolkit under exec" sh -c \
  "'$CUDAENV' exec -- sh -c 'ldd ./hello_shared' | grep -q '$REAL/lib64/libcudart.so\\|$REAL/lib/libcudart.so'"

finish
