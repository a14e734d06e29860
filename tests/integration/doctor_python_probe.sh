#!/usr/bin/env bash
# doctor's Python probe against a torch that behaves like the real one: it prints warnings on
# stdout and stderr (from Python, straight to the descriptors as C++ does, at exit), carries
# cuDNN, NCCL and nvidia-* wheels, and can take longer than --timeout to import.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_doctor.sh"

command -v jq >/dev/null || skip "jq is needed to read doctor --json"
no_driver
fake_torch 2.15.0 13.2 "sm_80 sm_90"
# What the real torch 2.15.0 prints without a GPU, and worse: lines on both streams, one without
# a newline, and at exit one that looks like the probe's own answer (an answer read as the last
# marked line on a shared stdout would be that one).
cat >>"$FAKE_PY/torch/__init__.py" <<'PY'
import atexit, os, sys
print("W1201 torch/utils/cpp_extension.py:183] No CUDA runtime is found")
sys.stdout.write("partial line from torch, no newline")
sys.stdout.flush()
os.write(1, b"C++ warning on fd 1\n")
os.write(2, b"C++ warning on fd 2\n")
print("UserWarning on stderr", file=sys.stderr)
atexit.register(lambda: print('printed at exit\nCUDAENV_PROBE {"torch": {"version": "9.9.9"}}'))
if os.environ.get("FAKE_TORCH_IMPORT_SECONDS"):
    import time
    time.sleep(float(os.environ["FAKE_TORCH_IMPORT_SECONDS"]))
from . import backends
PY
mkdir -p "$FAKE_PY/torch/backends/cudnn" "$FAKE_PY/torch/cuda/nccl"
echo 'from . import cudnn' >"$FAKE_PY/torch/backends/__init__.py"
printf 'def version():\n    return 92600\n' >"$FAKE_PY/torch/backends/cudnn/__init__.py"
printf 'def version():\n    return (2, 30, 7)\n' >"$FAKE_PY/torch/cuda/nccl/__init__.py"
echo 'from . import nccl' >>"$FAKE_PY/torch/cuda/__init__.py"
# wheel_beside_torch NAME VERSION: a dist-info as pip writes it, in torch's site-packages
wheel_beside_torch() {
  local dir="$FAKE_PY/${1//-/_}-$2.dist-info"
  mkdir -p "$dir"
  printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$1" "$2" >"$dir/METADATA"
}
wheel_beside_torch nvidia-cuda-runtime 13.2.86
wheel_beside_torch nvidia-cudnn-cu13 9.26.0.51
wheel_beside_torch nvidia-nccl-cu13 2.30.7
wheel_beside_torch triton 3.9.0
fake_deepspeed 0.19.8 pip
cat >"$FAKE_PY/deepspeed/__init__.py" <<'PY'
print("[WARNING] DeepSpeed: async_io requires the dev libaio .so object")
PY

doctor
assert_eq "" "$(probe .probes.python.problem)" "warnings on both streams leave the answer readable"
assert_eq "2.15.0 13.2" "$(probe '"\(.probes.python.torch) \(.probes.python.torch_cuda)"')" "the answer is the probe's, not the line torch printed"
assert_eq "9.26.0 2.30.7 13.2.86" "$(probe '"\(.probes.python.cudnn) \(.probes.python.nccl) \(.probes.python.cuda_runtime)"')" \
  "what torch carries: cuDNN from its number, NCCL, the CUDA runtime wheel"
assert_eq "nvidia-cuda-runtime=13.2.86 nvidia-cudnn-cu13=9.26.0.51 nvidia-nccl-cu13=2.30.7" \
  "$(probe '[.probes.python.nvidia_wheels[] | "\(.name)=\(.version)"] | join(" ")')" "the nvidia-* wheels beside torch, and nothing else"
assert_eq 0.19.8 "$(probe .probes.python.deepspeed)" "DeepSpeed from its dist-info"
assert_eq false "$(probe .probes.python.timed_out)" "answered in time"
assert_eq 60000 "$(probe .probes.python.timeout_ms)" "the default limit is a minute: importing torch takes seconds"
took=$(probe .probes.python.took_ms)
check "the probe's time is measured ($took ms)" test "$took" -gt 0 -a "$took" -lt 60000

run_capture "$CUDAENV" doctor --python "$PYTHON"
assert_contains "$OUT" "  torch carries: CUDA runtime 13.2.86, cuDNN 9.26.0, NCCL 2.30.7" "the report shows what torch carries"
assert_contains "$OUT" "  NVIDIA wheels: nvidia-cuda-runtime 13.2.86, nvidia-cudnn-cu13 9.26.0.51, nvidia-nccl-cu13 2.30.7" \
  "the report lists the wheels"
assert_contains "$OUT" "  probe took: " "the report says how long the probe took"
assert_contains "$OUT" " (limit 60.0 s, --timeout)" "and under which limit"
assert_not_contains "$OUT$ERR" "warning on fd" "nothing torch printed reaches doctor's output"
assert_not_contains "$OUT$ERR" "printed at exit" "nor what it prints at exit"

# A torch slower to import than the limit: the probe is stopped, and the report says how to wait longer.
export FAKE_TORCH_IMPORT_SECONDS=30
doctor --timeout 1
assert_eq true "$(probe .probes.python.timed_out)" "an import past --timeout is a timeout"
assert_eq "no answer within 1.0 s (importing torch reads hundreds of MB)" "$(probe .probes.python.problem)" "the problem names the limit"
assert_eq warning "$(severity_of python)" "a timeout is a warning"
assert_eq "cudaenv doctor --timeout 2" "$(fixes_of python)" "the fix doubles the limit"
took=$(probe .probes.python.took_ms)
check "stopped at the limit, not after the import ($took ms)" test "$took" -ge 1000 -a "$took" -lt 20000
run_capture "$CUDAENV" doctor --python "$PYTHON" --timeout 1.5
assert_contains "$OUT" "fix: cudaenv doctor --timeout 3" "the text report carries the fix"
assert_contains "$OUT" " (limit 1.5 s, --timeout)" "and the limit it ran under"
unset FAKE_TORCH_IMPORT_SECONDS

# A torch without cuDNN or NCCL (a CPU build) and no wheels beside it: none, not an error.
fake_torch 2.15.0+cpu none ""
rm -rf "$FAKE_PY"/nvidia_*
doctor
assert_eq "" "$(probe .probes.python.problem)" "a CPU build answers"
assert_eq "null null null 0" "$(probe '"\(.probes.python.cudnn) \(.probes.python.nccl) \(.probes.python.cuda_runtime) \(.probes.python.nvidia_wheels | length)"')" \
  "a CPU build carries none of them"
run_capture "$CUDAENV" doctor --python "$PYTHON"
assert_contains "$OUT" "  torch carries: CUDA runtime unknown, cuDNN unknown, NCCL unknown" "the report says unknown"
assert_not_contains "$OUT" "NVIDIA wheels:" "and lists no wheels"
finish
