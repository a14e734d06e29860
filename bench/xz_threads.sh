#!/usr/bin/env bash
# bench/xz_threads.sh [BUILD_DIR]: liblzma's threaded decoder against one decoder per core, the
# two ways `cudaenv install` could spend its cores on xz archives, measured with the xz program
# (which decodes with liblzma, as cudaenv does).
#   threaded  each archive in turn through liblzma's threaded decoder, one thread per core
#             (xz -T$(nproc) -dc)
#   per core  one single-threaded decoder per core, archives side by side, largest first
#             (xargs -P$(nproc) xz -T1 -dc)
# on bench/install.sh's cuda13 archives as `xz -6` writes them (one block each) and the same
# rewritten by `xz -T2 -6` (blocks of 24 MiB, which the threaded decoder can split among threads;
# built once into BUILD_DIR/bench-fixtures/cuda13-blocks). ROUNDS (default 5) interleaved rounds:
# medians and spread of wall time, CPU time and peak RSS.
set -euo pipefail

BUILD=$(cd "${1:-${CUDAENV_BUILD_DIR:-build}}" && pwd)
ROUNDS=${ROUNDS:-5}
SINGLE="$BUILD/bench-fixtures/cuda13" BLOCKS="$BUILD/bench-fixtures/cuda13-blocks"
CORES=$(nproc)
[ -e "$SINGLE/complete" ] || { echo "bench/xz_threads: run SETS=cuda13 bench/install.sh first (it builds $SINGLE)" >&2; exit 1; }
if [ ! -e "$BLOCKS/complete" ]; then
  echo "bench/xz_threads: rewriting $SINGLE's archives in blocks into $BLOCKS (once; minutes)..." >&2
  rm -rf "$BLOCKS" && mkdir -p "$BLOCKS"
  (cd "$SINGLE" && find . -name '*.tar.xz' -printf '%P\n') | while read -r relative; do
    xz -dc "$SINGLE/$relative" | xz -T2 -6 >"$BLOCKS/${relative//\//_}"
  done
  touch "$BLOCKS/complete"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cudaenv-xz-threads.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { printf '%s\n' "$@" | sort -g | sed -n '1p;$p' | paste -sd- -; }
archives() { find "$1" -name '*.tar.xz' -printf '%s %p\n' | sort -rn | cut -d' ' -f2; }
timed() {  # prints "WALL CPU PEAK_RSS_MIB"
  /usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "$@" >/dev/null
  awk '{ printf "%s %.2f %.1f\n", $1, $2 + $3, $4 / 1024 }' "$WORK/time"
}
threaded() { timed sh -c 'for a; do xz -T"$0" -dc "$a"; done' "$CORES" $(archives "$1"); }
per_core() { archives "$1" | timed xargs -P"$CORES" -n1 xz -T1 -dc; }

printf 'bench/xz_threads: %d CPU cores, %s, load average at start: %s\n' "$CORES" "$(xz --version | head -1)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
for set in single blocks; do
  dir=$SINGLE
  [ "$set" = blocks ] && dir=$BLOCKS
  cat $(archives "$dir") >/dev/null
  t_wall=() t_cpu=() t_rss=() p_wall=() p_cpu=() p_rss=()
  for round in $(seq "$ROUNDS"); do
    if [ $((round % 2)) -eq 1 ]; then
      read -r w c r <<<"$(threaded "$dir")" && t_wall+=("$w") t_cpu+=("$c") t_rss+=("$r")
      read -r w c r <<<"$(per_core "$dir")" && p_wall+=("$w") p_cpu+=("$c") p_rss+=("$r")
    else
      read -r w c r <<<"$(per_core "$dir")" && p_wall+=("$w") p_cpu+=("$c") p_rss+=("$r")
      read -r w c r <<<"$(threaded "$dir")" && t_wall+=("$w") t_cpu+=("$c") t_rss+=("$r")
    fi
    printf '  %s round %d: threaded %.2f s (CPU %.2f s), per core %.2f s (CPU %.2f s)\n' "$set" "$round" \
      "${t_wall[-1]}" "${t_cpu[-1]}" "${p_wall[-1]}" "${p_cpu[-1]}"
  done
  printf '%s (%d archives, %.1f MB): %d rounds, medians (spread)\n' "$([ "$set" = blocks ] && echo "xz -T2 blocks" || echo "one block each")" \
    "$(archives "$dir" | wc -l)" "$(echo "$(du -cb $(archives "$dir") | tail -1 | cut -f1) / 1000000" | bc -l)" "$ROUNDS"
  printf '  threaded (xz -T%d -dc, in turn): %.2f s (%s), CPU %.2f s (%s), peak RSS %.1f MiB\n' "$CORES" \
    "$(median "${t_wall[@]}")" "$(spread "${t_wall[@]}")" "$(median "${t_cpu[@]}")" "$(spread "${t_cpu[@]}")" "$(median "${t_rss[@]}")"
  printf '  per core (xz -T1 -dc, %d side by side): %.2f s (%s), CPU %.2f s (%s), peak RSS %.1f MiB per decoder\n' "$CORES" \
    "$(median "${p_wall[@]}")" "$(spread "${p_wall[@]}")" "$(median "${p_cpu[@]}")" "$(spread "${p_cpu[@]}")" "$(median "${p_rss[@]}")"
done
printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
