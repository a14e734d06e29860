#!/usr/bin/env bash
# How long `cudaenv doctor` takes against the baseline "what a person runs by hand": nvcc
# --version, python3 -c "import torch ...", gcc --version (the probes doctor cannot skip),
# on the fake machine of the doctor tests (fake driver, torch, DeepSpeed, toolkit, gcc).
# Usage: bench/doctor.sh [BUILD_DIR] [RUNS]   prints ms per run and the ratio.
SRC=$(cd "$(dirname "$0")/.." && pwd)
export CUDAENV_SOURCE_DIR="$SRC" CUDAENV_BUILD_DIR=$(cd "${1:-$SRC/build}" && pwd)
RUNS=${2:-20}
. "$SRC/tests/integration/lib.sh"
. "$SRC/tests/integration/lib_doctor.sh"

fake_gcc gcc 12.2.0
install_toolkit 12.4
"$CUDAENV" global 12.4 >/dev/null 2>&1
use_driver 12040 550.54.14 "NVIDIA GeForce RTX 4090:8.9"
fake_torch 2.4.0+cu124 12.4 "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"
fake_deepspeed 0.14.0

ms_per_run() {  # ms_per_run CMD...: mean wall time of RUNS runs
  local start end
  start=$(date +%s%N)
  for _ in $(seq "$RUNS"); do "$@" >/dev/null 2>&1; done
  end=$(date +%s%N)
  echo $(((end - start) / RUNS / 1000000))
}

by_hand() {
  nvcc --version
  "$PYTHON" -c 'import torch, deepspeed; print(torch.__version__, torch.version.cuda, torch.cuda.get_arch_list(), deepspeed.__version__)'
  gcc --version
}

doctor_ms=$(ms_per_run "$CUDAENV" doctor --python "$PYTHON")
hand_ms=$(ms_per_run by_hand)
echo "cudaenv doctor: ${doctor_ms} ms/run; baseline (nvcc --version + python -c 'import torch' + gcc --version by hand): ${hand_ms} ms/run"
awk -v d="$doctor_ms" -v h="$hand_ms" 'BEGIN { printf "ratio doctor/by-hand: %.2f\n", (h > 0 ? d / h : 0) }'
CHECKS=1
finish >/dev/null
