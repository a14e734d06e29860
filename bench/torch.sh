#!/usr/bin/env bash
# How long `cudaenv torch` takes (load manifests/pytorch.toml, choose, print) against the
# baseline `cudaenv --version` (process start alone). Usage: bench/torch.sh [BUILD_DIR] [RUNS]
set -eu
BUILD=${1:-build}
RUNS=${2:-200}
CUDAENV="$BUILD/cudaenv"
export CUDAENV_ROOT=$(mktemp -d) HOME=$(mktemp -d)
trap 'rm -rf "$CUDAENV_ROOT" "$HOME"' EXIT

ms_per_run() {  # ms_per_run CMD...: mean wall time in milliseconds over $RUNS runs
  local start end
  start=$(date +%s%N)
  for ((i = 0; i < RUNS; i++)); do "$@" >/dev/null 2>&1; done
  end=$(date +%s%N)
  echo "scale=3; ($end - $start) / 1000000 / $RUNS" | bc
}

base=$(ms_per_run "$CUDAENV" --version)
torch=$(ms_per_run "$CUDAENV" torch --cuda 12.4 --driver 550.54.14)
json=$(ms_per_run "$CUDAENV" torch --cuda 12.4 --driver 550.54.14 --json)
echo "baseline cudaenv --version:          ${base} ms"
echo "cudaenv torch --cuda 12.4:           ${torch} ms  (ratio $(echo "scale=2; $torch / $base" | bc) x baseline)"
echo "cudaenv torch --cuda 12.4 --json:    ${json} ms  (ratio $(echo "scale=2; $json / $base" | bc) x baseline)"
