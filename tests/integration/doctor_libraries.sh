#!/usr/bin/env bash
# cudaenv doctor: the cuDNN and NCCL a toolkit's headers name against the ones torch carries
# (a fake toolkit with cudnn_version.h and nccl.h, a fake torch answering like the real one),
# hostile headers, and the real CUDA 13.0's headers where it is installed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_doctor.sh"

command -v jq >/dev/null || skip "jq is needed to read doctor --json"
fake_gcc gcc 13.3.0
install_toolkit 13.2
"$CUDAENV" global 13.2 >/dev/null 2>&1
TOOLKIT="$CUDAENV_ROOT/versions/13.2"
use_driver 13020 580.65.06 "NVIDIA H100:9.0"
fake_torch 2.15.0 13.2 "sm_80 sm_90"
mkdir -p "$FAKE_PY/torch/backends/cudnn" "$FAKE_PY/torch/cuda/nccl"
echo 'from . import backends' >>"$FAKE_PY/torch/__init__.py"
echo 'from . import cudnn' >"$FAKE_PY/torch/backends/__init__.py"
printf 'def version():\n    return 91900\n' >"$FAKE_PY/torch/backends/cudnn/__init__.py"
printf 'def version():\n    return (2, 28, 9)\n' >"$FAKE_PY/torch/cuda/nccl/__init__.py"
echo 'from . import nccl' >>"$FAKE_PY/torch/cuda/__init__.py"

# headers CUDNN_VERSION NCCL_VERSION: the toolkit's cudnn_version.h and nccl.h, as NVIDIA writes them
headers() {
  local IFS=.
  set -- $1 $2
  printf '#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n\n#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' \
    "$1" "$2" "$3" >"$TOOLKIT/include/cudnn_version.h"
  printf '#ifndef NCCL_H_\n#define NCCL_H_\n#define NCCL_MAJOR %s\n#define NCCL_MINOR %s\n#define NCCL_PATCH %s\n#define NCCL_SUFFIX ""\n' \
    "$4" "$5" "$6" >"$TOOLKIT/include/nccl.h"
}

doctor
assert_eq "" "$(severity_of toolkit-cudnn)$(severity_of toolkit-nccl)" "a toolkit without cuDNN or NCCL: nothing to compare"
assert_eq "null null" "$(probe '"\(.probes.toolkit_libraries.cudnn) \(.probes.toolkit_libraries.nccl)"')" "and none probed"

headers 9.19.0 2.27.7
doctor
assert_eq "9.19.0 2.27.7" "$(probe '"\(.probes.toolkit_libraries.cudnn) \(.probes.toolkit_libraries.nccl)"')" \
  "the toolkit's versions from its headers"
assert_eq "ok ok" "$(severity_of toolkit-cudnn) $(severity_of toolkit-nccl)" "the same cuDNN minor and an older NCCL are fine"
run_capture "$CUDAENV" doctor --python "$PYTHON"
assert_contains "$OUT" "  toolkit carries: cuDNN 9.19.0, NCCL 2.27.7" "the report shows what the toolkit carries"

headers 9.26.0 2.29.1
doctor
assert_eq "warning warning" "$(severity_of toolkit-cudnn) $(severity_of toolkit-nccl)" "newer headers than torch's libraries"
assert_contains "$(title_of toolkit-cudnn)" "cuDNN 9.26.0 in nvcc 13.2" "the title names the toolkit's cuDNN"
assert_contains "$(title_of toolkit-cudnn)" "torch's cuDNN 9.19.0" "and torch's"
assert_eq "cudaenv install 13.2 --library cudnn@9.19" "$(fixes_of toolkit-cudnn)" "the fix installs torch's cuDNN into the toolkit"
assert_eq "cudaenv install 13.2 --library nccl@2.28" "$(fixes_of toolkit-nccl)" "and torch's NCCL"

headers 8.9.7 2.28.9
doctor
assert_eq "error ok" "$(severity_of toolkit-cudnn) $(severity_of toolkit-nccl)" "cuDNN 8 headers against torch's cuDNN 9: an error"
assert_eq 1 "$STATUS" "doctor exits 1 on it"
assert_contains "$(title_of toolkit-cudnn)" "cuDNN major mismatch" "and says so"

# Hostile headers: no version, never a crash, the rest of the report intact.
head -c 300000 /dev/urandom >"$TOOLKIT/include/cudnn_version.h"
rm -f "$TOOLKIT/include/nccl.h" && mkfifo "$TOOLKIT/include/nccl.h"
doctor
assert_eq "null null" "$(probe '"\(.probes.toolkit_libraries.cudnn) \(.probes.toolkit_libraries.nccl)"')" "binary junk and a FIFO: no version"
assert_eq "" "$(severity_of toolkit-cudnn)$(severity_of toolkit-nccl)" "and no finding"
assert_eq "ok" "$(severity_of toolkit-torch)" "the other checks still run"
assert_not_contains "$ERR" "internal error" "cleanly"
rm -f "$TOOLKIT/include/nccl.h" "$TOOLKIT/include/cudnn_version.h"
printf '#define CUDNN_MAJOR 99999999999999999999\n#define CUDNN_MINOR 1\n' >"$TOOLKIT/include/cudnn_version.h"
doctor
assert_eq "null" "$(probe .probes.toolkit_libraries.cudnn)" "an absurd number is no version"

# The real CUDA 13.0 here carries cuDNN and NCCL in its include/ (assembled from their wheels).
REAL=/usr/local/cuda-13.0
if [ -f "$REAL/include/cudnn_version.h" ] && [ -f "$REAL/include/nccl.h" ]; then
  CUDA_HOME="$REAL" doctor
  check "the real toolkit's cuDNN ($(probe .probes.toolkit_libraries.cudnn)) is read from its header" \
    grep -q "CUDNN_MINOR $(probe .probes.toolkit_libraries.cudnn | cut -d. -f2)\$" "$REAL/include/cudnn_version.h"
  check "and its NCCL ($(probe .probes.toolkit_libraries.nccl))" \
    grep -q "NCCL_MINOR $(probe .probes.toolkit_libraries.nccl | cut -d. -f2)\$" "$REAL/include/nccl.h"
fi

finish
