# End to end with the real compiler: /usr/local/cuda-13.0 is cut into NVIDIA's redist
# components (cuda_nvcc, cuda_crt, libnvvm, cuda_cudart, cuda_cccl), served on loopback,
# installed with `cudaenv install 13.0`, and a .cu program is compiled, linked and run through
# the nvcc shim. Without a GPU driver the program reports that, which proves it linked and ran.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

CUDA=/usr/local/cuda-13.0
[ -x "$CUDA/bin/nvcc" ] || skip "$CUDA is absent; this end-to-end test needs a real CUDA 13.0 toolkit"

LABEL=13.0.3  # the newest known 13.0.z: what `install 13.0` resolves to
part() { mkdir -p "$WORK/real/$1/$2" && cp -a "${@:3}" "$WORK/real/$1/$2/"; }
part cuda_nvcc bin $(ls -d "$CUDA"/bin/* | grep -v '/crt$')
part cuda_crt bin "$CUDA/bin/crt"
part cuda_crt include "$CUDA/include/crt"
part libnvvm . "$CUDA/nvvm"
part cuda_cudart include $(ls -d "$CUDA"/include/* | grep -v -e '/cccl$' -e '/crt$')
part cuda_cudart lib "$CUDA"/lib/libcudart* "$CUDA/lib/libcudadevrt.a" "$CUDA/lib/stubs"
part cuda_cccl include "$CUDA/include/cccl"
for component in cuda_nvcc cuda_crt libnvvm cuda_cudart cuda_cccl; do
  # Plain tar keeps this fast; the extractor detects the format and compression itself.
  add_component "$LABEL" "$component" 13.0.88 "$WORK/real/$component" --no-auto-compress
done
write_manifest "$LABEL"
start_mirror

run_capture "$CUDAENV" install 13.0 --mirror "$MIRROR_URL" --skip-manifest-pin
assert_eq 0 "$STATUS" "install 13.0 from the split toolkit: $ERR"
check "no targets/ folder: nvcc must find lib64 -> lib" test -L "$CUDAENV_ROOT/versions/$LABEL/lib64"

cat >"$WORK/hello.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
#include <thrust/device_vector.h>

__global__ void scale(float* x, float by) { x[threadIdx.x] *= by; }

int main() {
  int devices = 0;
  cudaError_t status = cudaGetDeviceCount(&devices);
  std::printf("hello from cudaenv: cudaGetDeviceCount -> %s (%d devices)\n", cudaGetErrorString(status), devices);
  if (status == cudaSuccess && devices > 0) {
    thrust::device_vector<float> x(32, 1.0f);
    scale<<<1, 32>>>(thrust::raw_pointer_cast(x.data()), 2.0f);
    std::printf("x[0] = %g\n", static_cast<float>(x[0]));
  }
  return 0;
}
CU
export CUDAENV_VERSION=13.0
run_capture "$CUDAENV_ROOT/shims/nvcc" -arch=sm_80 -o "$WORK/hello" "$WORK/hello.cu"
assert_eq 0 "$STATUS" "nvcc through the shim compiles and links: $ERR"
run_capture "$CUDAENV_ROOT/shims/nvcc" --version
assert_contains "$OUT" "release 13.0" "the shim runs the installed nvcc"
assert_contains "$("$CUDAENV" which nvcc)" "$CUDAENV_ROOT/versions/$LABEL/bin/nvcc" "which resolves into the install"
run_capture "$WORK/hello"
assert_contains "$OUT" "hello from cudaenv: cudaGetDeviceCount -> " "the program runs"
if [ -e /dev/nvidiactl ]; then
  assert_contains "$OUT" "x[0] = 2" "the kernel ran on the GPU"
else
  assert_contains "$OUT" "driver" "without a driver the runtime says so"
fi

finish
