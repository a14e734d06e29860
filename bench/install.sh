#!/usr/bin/env bash
# bench/install.sh [BUILD_DIR]: `cudaenv install` against a sequential `curl | tar -xJ` of the same
# archives, both from a loopback mirror (build/tests/test_mirror).
#
# Fixture: ~300 MB of .tar.xz archives in NVIDIA's redist layout (8 components, 4-120 MB each),
# filled with random-ish data that compresses poorly (alternating 1 MB chunks of random bytes and
# base64 of random bytes), built once and cached in BUILD_DIR/bench-install-fixture.
# Prints both wall times, the ratio cudaenv/baseline (goal <= 0.8) and cudaenv's peak RSS
# (goal <= 64 MiB, from /usr/bin/time -v). Each side runs ROUNDS times (default 2); the best counts.
# SINGLE_BLOCK=1 compresses each archive as one xz block (xz -T1), so no decoder can split one
# archive across cores; the default (xz -T2) writes multi-block archives.
set -euo pipefail

BUILD=$(cd "${1:-${CUDAENV_BUILD_DIR:-build}}" && pwd)
CUDAENV="$BUILD/cudaenv"
MIRROR_BIN="$BUILD/tests/test_mirror"
ROUNDS=${ROUNDS:-2}
XZ_THREADS=2
FIXTURE="$BUILD/bench-install-fixture"
if [ "${SINGLE_BLOCK:-0}" = 1 ]; then XZ_THREADS=1 FIXTURE="$BUILD/bench-install-fixture-single-block"; fi
LABEL=99.0.0
for tool in "$CUDAENV" "$MIRROR_BIN"; do
  [ -x "$tool" ] || { echo "bench/install: $tool is missing; build first (ninja -C $BUILD)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench/install: /usr/bin/time is needed for the peak RSS (apt-get install time)" >&2; exit 1; }

COMPONENTS="libcublas:120 libcusparse:60 libcufft:45 cuda_nvcc:40 libnvjitlink:20 cuda_cudart:8 cuda_cccl:4 cuda_nvrtc:3"

make_fixture() {
  echo "building the fixture in $FIXTURE (once; a few minutes)..." >&2
  rm -rf "$FIXTURE" && mkdir -p "$FIXTURE/mirror"
  local entries=()
  for spec in $COMPONENTS; do
    local component=${spec%%:*} megabytes=${spec##*:}
    local top="$component-linux-x86_64-1.0-archive"
    local tree="$FIXTURE/tree/$top"
    mkdir -p "$tree/lib" "$FIXTURE/mirror/$component/linux-x86_64"
    # Files of up to 8 MB; about 1.15 MB of input per MB of output after xz.
    local remaining=$((megabytes * 115 / 100)) index=0
    while [ "$remaining" -gt 0 ]; do
      local size=$((remaining < 8 ? remaining : 8))
      for chunk in $(seq "$size"); do
        if [ $((chunk % 2)) -eq 0 ]; then head -c 1048576 /dev/urandom; else head -c 786432 /dev/urandom | base64 -w 76; fi
      done >"$tree/lib/$component.part$index.so"
      remaining=$((remaining - size))
      index=$((index + 1))
    done
    local relative="$component/linux-x86_64/$top.tar.xz"
    tar -C "$FIXTURE/tree" -cf - "$top" | xz -T"$XZ_THREADS" -1 >"$FIXTURE/mirror/$relative"
    rm -rf "$FIXTURE/tree"
    entries+=("$component $relative $(sha256sum "$FIXTURE/mirror/$relative" | cut -c1-64) $(stat -c %s "$FIXTURE/mirror/$relative")")
  done
  printf '%s\n' "${entries[@]}" | python3 -c '
import json, sys
manifest = {"release_date": "2099-01-01", "release_label": sys.argv[1], "release_product": "cuda"}
for line in sys.stdin:
    component, relative, sha, size = line.split()
    manifest[component] = {"name": component, "license": "CUDA Toolkit", "version": "1.0",
                           "linux-x86_64": {"relative_path": relative, "sha256": sha, "md5": "0" * 32, "size": size}}
print(json.dumps(manifest, indent=4))' "$LABEL" >"$FIXTURE/mirror/redistrib_$LABEL.json"
  touch "$FIXTURE/complete"
}

[ -e "$FIXTURE/complete" ] || make_fixture
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cudaenv-bench.XXXXXX")
"$MIRROR_BIN" --root "$FIXTURE/mirror" >"$WORK/port" &
MIRROR_PID=$!
trap 'kill $MIRROR_PID 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
URL="http://127.0.0.1:$(cat "$WORK/port")/"
ARCHIVES=$(cd "$FIXTURE/mirror" && find . -name '*.tar.xz' -printf '%P\n' | sort)
TOTAL=$(cd "$FIXTURE/mirror" && du -cb $ARCHIVES | tail -1 | cut -f1)

now() { date +%s.%N; }

baseline() {
  local dest="$WORK/baseline"
  rm -rf "$dest" && mkdir -p "$dest"
  local start=$(now)
  for archive in $ARCHIVES; do
    curl -sSf "$URL$archive" | tar -xJ -C "$dest" --strip-components=1
  done
  echo "$(now) - $start" | bc
}

with_cudaenv() {
  rm -rf "$WORK/root"
  local start=$(now)
  CUDAENV_ROOT="$WORK/root" NO_COLOR=1 /usr/bin/time -v -o "$WORK/time.txt" "$CUDAENV" install "$LABEL" \
    --mirror "$URL" --skip-manifest-pin --platform linux-x86_64 --profile full 2>"$WORK/install.log" ||
    { cat "$WORK/install.log" >&2; exit 1; }
  local elapsed=$(echo "$(now) - $start" | bc)
  local rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
  echo "$elapsed $rss"
}

best_baseline=999999 best_cudaenv=999999 peak_rss=0
for round in $(seq "$ROUNDS"); do
  b=$(baseline)
  read -r c rss < <(with_cudaenv)
  printf 'round %d: curl|tar -xJ %.2f s, cudaenv install %.2f s (peak RSS %d kB)\n' "$round" "$b" "$c" "$rss"
  best_baseline=$(echo "if ($b < $best_baseline) $b else $best_baseline" | bc)
  best_cudaenv=$(echo "if ($c < $best_cudaenv) $c else $best_cudaenv" | bc)
  [ "$rss" -gt "$peak_rss" ] && peak_rss=$rss
done
diff -r -q "$WORK/baseline" "$WORK/root/versions/$LABEL" 2>/dev/null | grep -v -e 'Only in .*: cudaenv-install.json' \
  -e 'Only in .*: version.json' -e 'Only in .*: lib64' && { echo "bench/install: the two trees differ" >&2; exit 1; }

printf 'archives: %d, %.1f MB of .tar.xz (xz -T%d); %d CPU cores\n' "$(echo "$ARCHIVES" | wc -l)" \
  "$(echo "$TOTAL / 1000000" | bc -l)" "$XZ_THREADS" "$(nproc)"
printf 'baseline (sequential curl | tar -xJ): %.2f s\n' "$best_baseline"
printf 'cudaenv install (--jobs 4, sha256-checked): %.2f s\n' "$best_cudaenv"
printf 'wall ratio cudaenv/baseline: %.2f (goal <= 0.8)\n' "$(echo "$best_cudaenv / $best_baseline" | bc -l)"
printf 'cudaenv peak RSS: %.1f MiB (goal <= 64 MiB)\n' "$(echo "$peak_rss / 1024" | bc -l)"
