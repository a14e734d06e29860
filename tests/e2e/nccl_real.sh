# NVIDIA's real NCCL wheel (opt-in: CUDAENV_E2E=1): the nvidia-nccl-cu13 wheel kept in
# $E2E_CACHE/wheels, served from a loopback PEP 503 page, installed as a library of a CUDA 13
# toolkit (`install --library nccl`); a C program then compiles against the toolkit's nccl.h, links
# with -lnccl through the libnccl.so link cudaenv adds, and runs ncclGetVersion (no GPU needed).
. "$(dirname "$0")/../integration/lib.sh"
require_e2e
. "$(dirname "$0")/../integration/lib_install.sh"
unset PIP_INDEX_URL PIP_CONFIG_FILE
WHEEL=$(ls "$E2E_CACHE"/wheels/nvidia_nccl_cu13-*x86_64.whl 2>/dev/null | sort -V | tail -1)
[ -n "$WHEEL" ] || skip "no nvidia_nccl_cu13 wheel in $E2E_CACHE/wheels"
SYSTEM_CUDA=/usr/local/cuda-13.0
[ -f "$SYSTEM_CUDA/include/cuda_runtime.h" ] || skip "nccl.h includes cuda_runtime.h: no $SYSTEM_CUDA here"
command -v cc >/dev/null || skip "no C compiler"

NAME=$(basename "$WHEEL")
VERSION=$(echo "$NAME" | cut -d- -f2)
mkdir -p "$MIRROR_ROOT/files" "$MIRROR_ROOT/simple/nvidia-nccl-cu13"
cp "$WHEEL" "$MIRROR_ROOT/files/"
printf '<a href="../../files/%s#sha256=%s">%s</a>\n' "$NAME" "$(sha256sum "$WHEEL" | cut -c1-64)" "$NAME" \
  >"$MIRROR_ROOT/simple/nvidia-nccl-cu13/index.html"
add_fake_release 13.0.0
start_mirror

run_capture "$CUDAENV" install 13.0.0 --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64 --library nccl \
  --index-url "${MIRROR_URL}simple"
assert_eq 0 "$STATUS" "install 13.0.0 --library nccl with the real wheel: $ERR"
TOOLKIT="$CUDAENV_ROOT/versions/13.0.0"
check "the real nccl.h" grep -q "define NCCL_MAJOR" "$TOOLKIT/include/nccl.h"
assert_eq "libnccl.so.2" "$(readlink "$TOOLKIT/lib/libnccl.so")" "the link the wheel cannot carry"
check "no dist-info, no license file of the wheel" test -z "$(find "$TOOLKIT" -name '*.dist-info' -o -name 'License.txt')"
printf '#include <nccl.h>\n#include <stdio.h>\nint main(void) { int v = 0; ncclGetVersion(&v); printf("%%d\\n", v); return 0; }\n' \
  >"$WORK/version.c"
check "compiles against the toolkit's nccl.h and links with -lnccl" \
  cc -o "$WORK/version" "$WORK/version.c" -I"$TOOLKIT/include" -I"$SYSTEM_CUDA/include" -L"$TOOLKIT/lib64" -lnccl
IFS=. read -r major minor patch <<<"$VERSION"
assert_eq "$((major * 10000 + minor * 100 + patch))" "$(LD_LIBRARY_PATH="$TOOLKIT/lib64" "$WORK/version")" \
  "ncclGetVersion of the installed NCCL $VERSION"

finish
