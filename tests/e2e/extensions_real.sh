#!/usr/bin/env bash
# doctor's extension scan (issue 36) against what `import` really does, with the real torch from
# PyPI: extensions built here with g++ and the real nvcc, and DeepSpeed's fused_adam, each
# imported after torch and each judged by `cudaenv doctor --json` (probes.extensions). Any false
# positive or negative fails. Then 1h: a project on CUDA 13.2 from PyPI (minimal profile) under
# `cudaenv exec`, where doctor's locations of the CUDA libraries must be cuda.pathfinder's.
#
# The venv with torch and DeepSpeed is tests/e2e/torch_deepspeed.sh's, reused from $E2E_CACHE.
. "$(dirname "$0")/../integration/lib.sh"
require_e2e

TORCH=2.15.0
DEEPSPEED=0.19.8
SYSTEM_CUDA=/usr/local/cuda-13.0
WHEELS="$E2E_CACHE/wheels"
EXTRA="$E2E_CACHE/ext-wheels"
[ -x "$SYSTEM_CUDA/bin/nvcc" ] || skip "the real CUDA 13.0 is not at $SYSTEM_CUDA"
command -v jq >/dev/null || skip "jq is needed to read doctor --json"
command -v g++ >/dev/null || skip "g++ is needed to build the extensions"
PY_TAG=$(python3 -c 'import sys; print(f"{sys.version_info[0]}{sys.version_info[1]}")')
python3 -c 'import venv, ensurepip' 2>/dev/null || skip "python3 with venv and ensurepip is needed"

# The wheels: torch_deepspeed.sh's set, plus the CUDA 12 runtime, cuobjdump and cuda-pathfinder.
if ! ls "$WHEELS"/torch-"$TORCH"-cp"$PY_TAG"-*.whl "$WHEELS/deepspeed-$DEEPSPEED.tar.gz" >/dev/null 2>&1; then
  mkdir -p "$WHEELS"
  { python3 -m pip download -q -d "$WHEELS" "torch==$TORCH" setuptools &&
    python3 -m pip download -q -d "$WHEELS" --no-deps --no-binary deepspeed "deepspeed==$DEEPSPEED" &&
    tar -xzOf "$WHEELS/deepspeed-$DEEPSPEED.tar.gz" "deepspeed-$DEEPSPEED/requirements/requirements.txt" >"$WORK/ds-req.txt" &&
    python3 -m pip download -q -d "$WHEELS" -r "$WORK/ds-req.txt"; } >"$WORK/download.log" 2>&1 ||
    skip "torch $TORCH and DeepSpeed $DEEPSPEED are not in $WHEELS and PyPI did not give them: $(tail -1 "$WORK/download.log")"
fi
if ! ls "$EXTRA"/nvidia_cuda_runtime_cu12-*.whl "$EXTRA"/nvidia_cuda_cuobjdump-*.whl "$EXTRA"/cuda_pathfinder-*.whl >/dev/null 2>&1; then
  mkdir -p "$EXTRA"
  python3 -m pip download -q --no-deps -d "$EXTRA" nvidia-cuda-runtime-cu12 nvidia-cuda-cuobjdump cuda-pathfinder >"$WORK/download.log" 2>&1 ||
    skip "nvidia-cuda-runtime-cu12, nvidia-cuda-cuobjdump and cuda-pathfinder are not in $EXTRA and PyPI did not give them"
fi
WHEEL_SET=$(ls "$WHEELS" | sha256sum | cut -c1-12)
VENV="$E2E_CACHE/venv-torch-$TORCH-deepspeed-$DEEPSPEED-cp$PY_TAG-$WHEEL_SET"
PY="$VENV/bin/python"
if ! [ -e "$VENV/.complete" ]; then
  echo "building $VENV"
  { rm -rf "$VENV" && python3 -m venv "$VENV" &&
    "$VENV/bin/pip" install -q --no-index --find-links "$WHEELS" "torch==$TORCH" setuptools &&
    DS_BUILD_OPS=0 "$VENV/bin/pip" install -q --no-index --no-build-isolation --find-links "$WHEELS" "deepspeed==$DEEPSPEED" &&
    touch "$VENV/.complete"; } >"$WORK/venv.log" 2>&1 || { cat "$WORK/venv.log" >&2; fail "build the venv"; finish; }
fi
TORCH_DIR=$("$PY" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null)
ABI=$("$PY" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))' 2>/dev/null)
PY_INCLUDE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
SUFFIX=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
[ -n "$TORCH_DIR" ] || { fail "import torch in $VENV"; finish; }
[ -f "$PY_INCLUDE/Python.h" ] || skip "Python.h is not at $PY_INCLUDE (apt-get install python3-dev)"

EXTS="$WORK/exts"
mkdir -p "$EXTS" "$WORK/src"
TOOLS="$WORK/tools"
mkdir -p "$TOOLS"
for wheel in "$EXTRA"/nvidia_cuda_runtime_cu12-*.whl "$EXTRA"/nvidia_cuda_cuobjdump-*.whl "$EXTRA"/cuda_pathfinder-*.whl; do
  unzip -qo "$wheel" -d "$TOOLS"
done
CUDART12=$(dirname "$(find "$TOOLS" -name 'libcudart.so.12' | head -1)")
CUOBJDUMP=$(find "$TOOLS" -name cuobjdump -type f | head -1)
chmod +x "$CUOBJDUMP"

# module NAME: the C source of an extension module NAME whose init calls use_torch() (a
# function of the .cpp/.cu beside it).
module_c() {
  cat <<C
#include <Python.h>
void use_torch(void);
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "$1", 0, -1, 0};
PyMODINIT_FUNC PyInit_$1(void) { use_torch(); return PyModule_Create(&def); }
C
}
# An extension that needs c10::detail::torchCheckFail(..., const std::string&): its mangling
# depends on _GLIBCXX_USE_CXX11_ABI. (TORCH_CHECK with a literal calls the const char* overload.)
cat >"$WORK/src/uses_c10.cpp" <<'CPP'
#include <c10/util/Exception.h>
#include <string>
extern "C" void use_torch(void) {
  volatile int x = 1;
  if (x == 0) c10::detail::torchCheckFail("use_torch", __FILE__, __LINE__, std::string("never"));
  if (x == 2) c10::detail::torchCheckFail("use_torch", __FILE__, __LINE__, "never");  // the same under both ABIs
}
CPP
# One that needs a c10 function torch has never had (and one it has, so that it links libc10).
cat >"$WORK/src/lacks_symbol.cpp" <<'CPP'
#include <cstdint>
namespace c10 { void cudaenv_e2e_function_torch_lacks(int); }
namespace c10::detail { [[noreturn]] void torchCheckFail(const char*, const char*, std::uint32_t, const char*); }
extern "C" void use_torch(void) {
  volatile int x = 1;
  if (x == 0) c10::cudaenv_e2e_function_torch_lacks(x);
  if (x == 2) c10::detail::torchCheckFail("use_torch", __FILE__, __LINE__, "never");
}
CPP
cat >"$WORK/src/kernel.cu" <<'CU'
__global__ void add_one(float* x) { x[threadIdx.x] += 1.0f; }
extern "C" void use_torch(void) {}
CU
cat >"$WORK/src/cudart12.cpp" <<'CPP'
extern "C" int cudaRuntimeGetVersion(int*);
extern "C" void use_torch(void) { int v = 0; volatile int x = 1; if (x == 0) cudaRuntimeGetVersion(&v); }
CPP

# build NAME OBJECT-COMMAND... : the module NAME from its C init and one object
TORCH_FLAGS=(-I"$TORCH_DIR/include" -L"$TORCH_DIR/lib" -lc10)
build_module() {
  local name=$1 object=$2
  shift 2
  module_c "$name" >"$WORK/src/$name.c"
  gcc -c -fPIC -I"$PY_INCLUDE" -o "$WORK/src/$name-init.o" "$WORK/src/$name.c" &&
    g++ -shared -o "$EXTS/$name$SUFFIX" "$WORK/src/$name-init.o" "$object" "$@"
}
echo "building the extensions"
g++ -c -fPIC -std=c++17 -D_GLIBCXX_USE_CXX11_ABI="$ABI" -I"$TORCH_DIR/include" -o "$WORK/src/uses_c10.o" "$WORK/src/uses_c10.cpp" &&
  build_module ext_torch_abi "$WORK/src/uses_c10.o" "${TORCH_FLAGS[@]}" || fail "build ext_torch_abi"
g++ -c -fPIC -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=$((1 - ABI)) -I"$TORCH_DIR/include" -o "$WORK/src/other_abi.o" "$WORK/src/uses_c10.cpp" &&
  build_module ext_other_abi "$WORK/src/other_abi.o" "${TORCH_FLAGS[@]}" || fail "build ext_other_abi"
g++ -c -fPIC -std=c++17 -o "$WORK/src/lacks.o" "$WORK/src/lacks_symbol.cpp" &&
  build_module ext_lacks_symbol "$WORK/src/lacks.o" "${TORCH_FLAGS[@]}" || fail "build ext_lacks_symbol"
"$SYSTEM_CUDA/bin/nvcc" -c -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 -o "$WORK/src/sm80.o" "$WORK/src/kernel.cu" &&
  build_module ext_sm80 "$WORK/src/sm80.o" -L"$SYSTEM_CUDA/lib64" -lcudart_static -lrt -lpthread -ldl || fail "build ext_sm80"
"$SYSTEM_CUDA/bin/nvcc" -c -Xcompiler -fPIC -gencode arch=compute_80,code=compute_80 -Xfatbin -compress-all -o "$WORK/src/ptx80.o" "$WORK/src/kernel.cu" &&
  build_module ext_ptx80 "$WORK/src/ptx80.o" -L"$SYSTEM_CUDA/lib64" -lcudart_static -lrt -lpthread -ldl || fail "build ext_ptx80"
g++ -c -fPIC -o "$WORK/src/cudart12.o" "$WORK/src/cudart12.cpp" &&
  build_module ext_cudart12 "$WORK/src/cudart12.o" -L"$CUDART12" -l:libcudart.so.12 || fail "build ext_cudart12"

# DeepSpeed's fused_adam for one arch, built as DS_BUILD_FUSED_ADAM=1 does, with the system nvcc
# 13.0 against torch's 13.2 (DS_SKIP_CUDA_CHECK=1: DeepSpeed refuses the minor mismatch, torch
# does not). The wheel is kept in $E2E_CACHE: the build takes minutes.
DS_CACHE="$E2E_CACHE/ds-fused-adam-$DEEPSPEED-torch$TORCH-sm90"
if ! ls "$DS_CACHE"/deepspeed-*.whl >/dev/null 2>&1; then
  echo "building DeepSpeed's fused_adam for sm_90"
  rm -rf "$DS_CACHE" && mkdir -p "$DS_CACHE"
  env PATH="$SYSTEM_CUDA/bin:$PATH" CUDA_HOME="$SYSTEM_CUDA" DS_ACCELERATOR=cuda DS_BUILD_OPS=0 DS_BUILD_FUSED_ADAM=1 \
    DS_SKIP_CUDA_CHECK=1 TORCH_CUDA_ARCH_LIST=9.0 MAX_JOBS=2 \
    "$PY" -m pip wheel -q --no-deps --no-index --no-build-isolation --no-cache-dir -w "$DS_CACHE" \
    "$WHEELS/deepspeed-$DEEPSPEED.tar.gz" >"$WORK/ds-build.log" 2>&1 || { tail -20 "$WORK/ds-build.log" >&2; rm -rf "$DS_CACHE"; }
fi
FUSED_ADAM=
if ls "$DS_CACHE"/deepspeed-*.whl >/dev/null 2>&1; then
  OP=$(unzip -Z1 "$DS_CACHE"/deepspeed-*.whl | grep 'fused_adam_op.*\.so$')
  unzip -qo "$DS_CACHE"/deepspeed-*.whl "$OP" -d "$WORK/ds-op" && cp "$WORK/ds-op/$OP" "$EXTS/" && FUSED_ADAM=$(basename "$OP" | cut -d. -f1)
else
  fail "DeepSpeed builds fused_adam for sm_90"
fi

# doctor, with a stand-in driver whose GPU is an H100 (9.0): its verdict for each module.
export PYTHONPATH="$EXTS"
run_capture env LD_LIBRARY_PATH="$BUILD/tests/fake_driver" FAKE_CUDA_GPUS="NVIDIA H100:9.0" FAKE_CUDA_DRIVER_VERSION=13020 \
  "$CUDAENV" doctor --json --python "$PY" --timeout 300
JSON=$OUT
assert_eq true "$(jq -r .probes.extensions.ran <<<"$JSON")" "doctor scanned the extensions"
assert_eq '["9.0"]' "$(jq -c .probes.extensions.archs <<<"$JSON")" "against the stand-in GPU's arch"
verdict() {  # the scan's verdict for module NAME: loads / missing-symbols[-other-abi] / missing-libraries / no-kernel
  jq -r --arg name "$1" '[.probes.extensions.packages[].modules[] | select(.file | split("/") | last | startswith($name + "."))] | first |
    if . == null then "not scanned"
    elif (.missing_libraries | length) > 0 then "missing-libraries " + (.missing_libraries | join(","))
    elif .missing_symbols != null then "missing-symbols" + (if .missing_symbols.other_abi then "-other-abi" else "" end) + " " + .missing_symbols.example
    elif .kernels != null and (.kernels.uncovered | length) > 0 then "no-kernel " + (.kernels.uncovered | join(","))
    else "loads" end' <<<"$JSON"
}
imports() {  # OK, or the ImportError's last line
  local said
  said=$(cd "$WORK" && "$PY" -c "import torch, $1" 2>&1 >/dev/null | tail -1)
  echo "${said:-OK}"
}
echo
printf '%-20s | %-60s | %s\n' extension "python -c 'import torch, X'" "doctor --json verdict"
for name in ext_torch_abi ext_other_abi ext_lacks_symbol ext_sm80 ext_ptx80 ext_cudart12 $FUSED_ADAM; do
  [ -f "$EXTS/$name$SUFFIX" ] || continue
  said=$(verdict "$name")
  got=$(imports "$name")
  printf '%-20s | %-60.60s | %s\n' "$name" "$got" "$said"
  # A verdict of "will not load" must match an ImportError, and the other way round.
  case "$said" in
    missing-*) assert_contains "$got" "Error" "$name: doctor says it will not load, and import fails" ;;
    *) assert_eq OK "$got" "$name: doctor says it loads, and import works" ;;
  esac
done
echo
assert_contains "$(verdict ext_other_abi)" "missing-symbols-other-abi" "the other C++ ABI is named as the cause"
assert_contains "$(verdict ext_other_abi)" "c10::detail::torchCheckFail" "with one missing symbol, demangled"
assert_eq "missing-symbols c10::cudaenv_e2e_function_torch_lacks(int)" "$(verdict ext_lacks_symbol)" "a symbol torch lacks is named"
assert_eq "missing-libraries libcudart.so.12" "$(verdict ext_cudart12)" "the CUDA 12 runtime is missing in torch's CUDA 13 process"
assert_eq "no-kernel 9.0" "$(verdict ext_sm80)" "sm_80 SASS does not run on a 9.0 GPU"
assert_eq loads "$(verdict ext_ptx80)" "compute_80 PTX JIT-compiles for 9.0"
assert_eq '["compute_80"]' "$(jq -c '[.probes.extensions.packages[].modules[] | select(.file | contains("ext_ptx80")) | .kernels.ptx[]]' <<<"$JSON")" \
  "the compressed PTX entry is read from its header"
# The fat-binary reader against cuobjdump (which names PTX sm_XY.ptx) on each module with device code.
for name in ext_sm80 ext_ptx80 $FUSED_ADAM; do
  [ -f "$EXTS/$name$SUFFIX" ] || continue
  listed=$("$CUOBJDUMP" --list-elf --list-ptx "$EXTS/$name$SUFFIX" 2>/dev/null | grep -o '\(sm\|compute\)_[0-9]*[af]*\.\(cubin\|ptx\)' |
    sed 's/\.cubin$//; s/^sm_\(.*\)\.ptx$/compute_\1/' | sort -u | tr '\n' ' ')
  read=$(jq -r --arg name "$name" '[.probes.extensions.packages[].modules[] | select(.file | split("/") | last | startswith($name + ".")) |
    .kernels | (.sass + .ptx)[]] | unique | join(" ")' <<<"$JSON")
  assert_eq "$listed" "$read " "$name: doctor reads the archs cuobjdump --list-elf --list-ptx lists ($listed)"
done
[ -n "$FUSED_ADAM" ] && assert_eq loads "$(verdict "$FUSED_ADAM")" "DeepSpeed's fused_adam for sm_90 loads and covers the 9.0 GPU"
assert_eq '[]' "$(jq -c '[.probes.extensions.packages[] | select(.name != "ext_torch_abi" and (.name | startswith("ext_") | not)) | .modules[] | select(.missing_symbols != null or (.missing_libraries | length) > 0)]' <<<"$JSON")" \
  "no false alarm on the venv's own modules (torch, DeepSpeed, triton, ...)"

# 1h: CUDA 13.2 from PyPI, minimal profile, selected; cuda.pathfinder in the same environment.
INDEX=${CUDAENV_E2E_INDEX:-https://pypi.org/simple}
mkdir -p "$E2E_CACHE/cudaenv-cache" "$CUDAENV_ROOT" && ln -s "$E2E_CACHE/cudaenv-cache" "$CUDAENV_ROOT/cache"
mkdir -p "$WORK/project" && cd "$WORK/project" || exit 1
if "$CUDAENV" install 13.2 --source pypi --index-url "$INDEX" --profile minimal --keep-downloads >"$WORK/install.log" 2>&1; then
  check "cudaenv use 13.2" "$CUDAENV" use 13.2
  # cuda.pathfinder in a venv of its own: in torch's venv it would take NVIDIA's wheels first.
  python3 -m venv --without-pip "$WORK/pathfinder" &&
    unzip -qo "$EXTRA"/cuda_pathfinder-*.whl -d "$("$WORK/pathfinder/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" ||
    fail "a venv with cuda-pathfinder"
  PATHFINDER=$("$CUDAENV" exec -- "$WORK/pathfinder/bin/python" -c '
import cuda.pathfinder as p
for name in ("cudart", "nvrtc", "nvJitLink"):
    try: print(name, p.load_nvidia_dynamic_lib(name).abs_path)
    except Exception as error: print(name, "none")' 2>/dev/null)
  echo "cuda.pathfinder under cudaenv exec:"
  echo "$PATHFINDER" | sed 's/^/  /'
  run_capture "$CUDAENV" exec -- "$CUDAENV" doctor --json --python "$PY" --timeout 300
  FOREIGN=$(jq -r '.probes.toolkit_libraries_found.foreign[] | "\(.soname) \(.found)"' <<<"$OUT")
  echo "doctor: $(jq -r '.findings[] | select(.id == "toolkit-foreign-libraries") | .title' <<<"$OUT")"
  echo "doctor: the toolkit lacks, and the loader takes from elsewhere:"
  echo "$FOREIGN" | sed 's/^/  /'
  assert_contains "$(awk '$1 == "cudart" {print $2}' <<<"$PATHFINDER")" "$CUDAENV_ROOT" "cuda.pathfinder loads libcudart from the selected 13.2"
  NVRTC=$(awk '$1 == "nvrtc" {print $2}' <<<"$PATHFINDER")
  case "$NVRTC" in
    "$CUDAENV_ROOT"/*) fail "cuda.pathfinder took libnvrtc from the minimal 13.2 toolkit, which has none" ;;
    none) echo "  (no libnvrtc anywhere: nothing to compare)" ;;
    *) assert_contains "$FOREIGN" "$(dirname "$NVRTC")" "doctor places libnvrtc where cuda.pathfinder loads it from" ;;
  esac
  assert_contains "$(jq -r '.findings[] | select(.id == "toolkit-foreign-libraries") | .fixes[]' <<<"$OUT")" "--component cuda_nvrtc" \
    "the fix names the component that adds libnvrtc"
else
  tail -5 "$WORK/install.log" >&2
  fail "cudaenv install 13.2 --source pypi --profile minimal"
fi
finish
