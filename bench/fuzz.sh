#!/usr/bin/env bash
# bench/fuzz.sh [SECONDS] [TARGET...]: builds the libFuzzer targets (tests/fuzz/fuzz_<name>.cpp)
# with clang, ASan and UBSan in their own build folder, and runs each for SECONDS (default 180),
# one after another, seeded from tests/fuzz/corpus/<name>/. Prints executions and crashes per
# target. Not part of CI.
#
#   FUZZ_BUILD_DIR  build folder (default build-fuzz); its corpus/<name>/ keeps what the runs
#                   found, crashes/<name>/ the inputs that crashed (add each as a unit test);
#                   "crashes" below counts those new in this run.
#   FUZZ_JOBS       build parallelism (default 2)
set -euo pipefail

SOURCE=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_EACH=${1:-180}
shift || true
BUILD=${FUZZ_BUILD_DIR:-$SOURCE/build-fuzz}

cmake -S "$SOURCE" -B "$BUILD" -G Ninja -DCUDAENV_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ $(command -v ccache >/dev/null && echo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache) >/dev/null
cmake --build "$BUILD" --target fuzz_targets -j "${FUZZ_JOBS:-2}"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for source in "$SOURCE"/tests/fuzz/fuzz_*.cpp; do
    name=${source##*/fuzz_}
    targets+=("${name%.cpp}")
  done
fi

summary=()
status=0
for name in "${targets[@]}"; do
  corpus="$BUILD/corpus/$name" crashes="$BUILD/crashes/$name" log="$BUILD/fuzz-$name.log"
  mkdir -p "$corpus" "$crashes"
  seeds="$SOURCE/tests/fuzz/corpus/$name"
  [ -d "$seeds" ] || seeds=
  before=$(find "$crashes" -type f | wc -l)
  echo "== fuzz_$name for ${SECONDS_EACH}s" >&2
  # -rss_limit_mb and -timeout turn unbounded memory and hangs into findings too.
  set +e
  "$BUILD/fuzz/fuzz_$name" -max_total_time="$SECONDS_EACH" -print_final_stats=1 -timeout=10 \
    -rss_limit_mb=2048 -max_len=131072 -artifact_prefix="$crashes/" "$corpus" $seeds >"$log" 2>&1
  rc=$?
  set -e
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  found=$(($(find "$crashes" -type f | wc -l) - before))
  [ "$rc" -eq 0 ] && [ "$found" -eq 0 ] || status=1
  summary+=("$(printf '%-16s executions %-10s crashes %s%s' "$name" "${executions:-?}" "$found" \
    "$([ "$found" -eq 0 ] || echo " (in $crashes, log $log)")")")
done
printf '%s\n' "${summary[@]}"
exit "$status"
