# A host compiler per project, with the real CUDA 13.0: `use --host-compiler gcc-12` pins it, and
# `exec` and the nvcc shim give nvcc the same compiler (wrappers named gcc-12 and g++-12 record
# each call and run the machine's gcc and g++). A compiler that is missing, has no C++ driver
# beside it or is newer than 13.0's crt/host_config.h allows is refused, naming the newest 13.0
# accepts; the prompt hook says so and applies the environment; doctor gives the same fix.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_doctor.sh"

REAL=/usr/local/cuda-13.0
[ -x "$REAL/bin/nvcc" ] || skip "$REAL/bin/nvcc is absent; this test needs the real CUDA 13.0 toolkit"
command -v gcc >/dev/null && command -v g++ >/dev/null || skip "gcc and g++ are not installed"
GCC_MAJOR=$(gcc -dumpversion | cut -d. -f1)
[ "$GCC_MAJOR" -le 15 ] || skip "this machine's gcc $GCC_MAJOR is newer than CUDA 13.0 accepts"
no_driver
CALLS="$WORK/compiler-calls"
# wrap NAME REAL: NAME on PATH, recording "NAME ARGS" and running REAL
wrap() {
  printf '#!/bin/sh\necho "%s $*" >>"%s"\nexec %s "$@"\n' "$1" "$CALLS" "$(command -v "$2")" >"$FAKE_BIN/$1"
  chmod +x "$FAKE_BIN/$1"
}
wrap gcc-12 gcc
wrap g++-12 g++
"$CUDAENV" add "$REAL" >/dev/null 2>&1
mkdir -p "$WORK/app" && cd "$WORK/app" || exit 1

run_capture "$CUDAENV" use 13.0 --host-compiler gcc-12
assert_eq 0 "$STATUS" "use 13.0 --host-compiler gcc-12: $ERR"
assert_contains "$ERR" "host compiler gcc-12 set in $WORK/app/cuda.toml" "use says what it wrote"
assert_contains "$(cat cuda.toml)" 'host_compiler = "gcc-12"' "cuda.toml holds it"
ENV_OUT=$("$CUDAENV" env --shell bash)
for pair in "NVCC_CCBIN='g++-12'" "CUDAHOSTCXX='g++-12'" "CC='gcc-12'" "CXX='g++-12'"; do
  assert_contains "$ENV_OUT" "export $pair;" "env exports $pair"
done

cat >hello.cu <<'CU'
#include <iostream>
#include <string>
__global__ void fill(int* out) { *out = 42; }
int main() {
  std::string side = "host";
  std::cout << side << " compiled by gcc " << __GNUC__ << std::endl;
  return 0;
}
CU
# `exec`: nvcc compiles and links with the pinned compiler (the C++ library links: g++-12).
: >"$CALLS"
run_capture "$CUDAENV" exec -- nvcc hello.cu -o hello
assert_eq 0 "$STATUS" "exec nvcc compiles and links hello.cu: $ERR"
assert_eq "host compiled by gcc $GCC_MAJOR" "$(./hello)" "the program runs"
check "nvcc compiled host code with g++-12" grep -q '^g++-12 .*-c -x c++' "$CALLS"
check "nvcc linked with g++-12" grep -q '^g++-12 .*-o hello' "$CALLS"
# The nvcc shim hands nvcc the same compiler (its plan, not a second compile).
: >"$CALLS"
run_capture nvcc -dryrun hello.cu -o hello
assert_eq 0 "$STATUS" "the nvcc shim runs: $ERR"
assert_contains "$ERR" "#\$ g++-12 " "the nvcc shim's nvcc plans with g++-12"

# Refused: newer than 13.0's header allows, missing, no C++ driver beside it.
fake_gcc gcc-16 16.1.0
fake_gcc g++-16 16.1.0
run_capture "$CUDAENV" use --host-compiler gcc-16
assert_eq 1 "$STATUS" "gcc 16 with CUDA 13.0 is refused"
assert_contains "$ERR" "error: CUDA 13.0's nvcc does not accept gcc-16 (gcc 16.1.0): it takes gcc up to 15 ($REAL/include/crt/host_config.h)" \
  "names the compiler, the newest accepted and the header"
assert_contains "$ERR" "cudaenv use --host-compiler gcc-12" "the fix names the gcc-12 on PATH"
assert_contains "$(cat cuda.toml)" 'host_compiler = "gcc-12"' "a refused compiler is not written"
run_capture "$CUDAENV" use --host-compiler gcc-99
assert_eq 1 "$STATUS" "a missing compiler is refused"
assert_contains "$ERR" "host compiler gcc-99 is not on PATH; the newest gcc CUDA 13.0 accepts is gcc 15" "missing: said with the bound"
wrap gcc-11 gcc
run_capture "$CUDAENV" use --host-compiler gcc-11
assert_eq 1 "$STATUS" "a gcc without its g++ is refused"
assert_contains "$ERR" "host compiler gcc-11 has no C++ driver g++-11 on PATH beside it" "no C++ driver: said"

# A cuda.toml that names one anyway: exec and env refuse; the hook warns and applies it.
sed -i 's/gcc-12/gcc-16/' cuda.toml
run_capture "$CUDAENV" exec -- true
assert_eq 1 "$STATUS" "exec refuses a compiler the toolkit rejects"
assert_contains "$ERR" "error: $WORK/app/cuda.toml: CUDA 13.0's nvcc does not accept gcc-16" "exec names the file"
run_capture "$CUDAENV" env
assert_eq 1 "$STATUS" "env refuses it too"
run_capture "$CUDAENV" hook-env --shell bash
assert_eq 0 "$STATUS" "the hook never fails a prompt"
assert_contains "$ERR" "cudaenv: warning: $WORK/app/cuda.toml: CUDA 13.0's nvcc does not accept gcc-16" "the hook warns"
assert_contains "$OUT" "export NVCC_CCBIN='g++-16';" "the hook applies the project's environment"
# doctor probes the project's compiler (what the shims give nvcc) and gives the same fix.
doctor
assert_eq error "$(severity_of host-compiler)" "doctor: gcc 16 with 13.0"
assert_contains "$(title_of host-compiler)" "gcc 16.1.0 ([cuda] host_compiler=gcc-16" "doctor: the project's compiler"
assert_contains "$(explanation_of host-compiler)" "($REAL/include/crt/host_config.h)" "doctor: the header's bound"
assert_eq "cudaenv use --host-compiler gcc-12" "$(fixes_of host-compiler | head -n 1)" "doctor: the same fix"

# Removal, as the version's: the key goes, and the file with it when nothing else is left.
run_capture "$CUDAENV" use --unset-host-compiler
assert_eq 0 "$STATUS" "--unset-host-compiler: $ERR"
assert_not_contains "$(cat cuda.toml)" "host_compiler" "the key is gone"
assert_contains "$(cat cuda.toml)" 'version = "13.0"' "the pin stays"
assert_not_contains "$("$CUDAENV" env --shell bash)" "NVCC_CCBIN" "env exports no compiler"
mkdir -p "$WORK/only" && cd "$WORK/only" || exit 1
"$CUDAENV" use --host-compiler gcc-12 >/dev/null 2>&1
run_capture "$CUDAENV" use --unset-host-compiler
assert_contains "$ERR" "removed $WORK/only/cuda.toml: nothing else was in it" "the file held only the compiler"
check "and is gone" test ! -e cuda.toml
run_capture "$CUDAENV" use --unset-host-compiler
assert_eq 1 "$STATUS" "nothing to remove without a cuda.toml"
finish
