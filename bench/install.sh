#!/usr/bin/env bash
# bench/install.sh [BUILD_DIR]: `cudaenv install` against the 2-core decode floor of the same
# archives, for multi-block and single-block .tar.xz, from a loopback mirror (build/tests/test_mirror).
#
# Fixture: ~300 MB of .tar.xz archives in NVIDIA's redist layout (8 components, 3-120 MB each),
# filled with random-ish data that compresses poorly (alternating 1 MB chunks of random bytes and
# base64 of random bytes), built once and cached in BUILD_DIR/bench-install-fixture: written by
# xz -T2 (multi-block: one archive can decode on both cores), and the same archives rewritten as
# one block each (bench/xz_one_block.py: as xz -T1 writes them, each decodes on one core) in
# BUILD_DIR/bench-install-fixture-single-block.
#
# The floor is what decoding alone costs on 2 cores, output thrown away: `xz -T2 -dc` of every
# archive in turn, and two single-threaded `xz -dc` side by side taking the archives largest
# first (xargs -P2); the faster of the two counts. cudaenv also downloads, checks sha256 and
# writes the files. Each round runs the floors and cudaenv one after the other, cudaenv last in
# odd rounds and first in even ones (ROUNDS, default 5); printed are medians, the spread of the
# per-round ratios cudaenv/floor (goal <= 1.05) and cudaenv's peak RSS (goal <= 64 MiB,
# /usr/bin/time -v). A sequential `curl | tar -xJ` of the same archives runs once per set, as
# the baseline of a plain script (goal <= 0.8).
# Each round also measures the honest floor, the work cudaenv may not skip done by plain tools,
# two archives side by side largest first: curl to a file, its sha256 checked against the
# manifest before any byte is decoded (openssl, which uses the CPU's SHA instructions as
# cudaenv's nettle does; sha256sum, without them, where openssl is missing), `xz -dc | tar -x`
# into a folder, the file removed. And it measures what the decode floor skips, each step alone:
# receiving the archives, their sha256 and writing the decoded files, as a share of the floor's CPU
# time (cudaenv keeps both cores busy, so that share is about what it must add to the floor).
# It decodes the archives as cudaenv does, alone (build/bench/xz_decode: cudaenv's own LZMA2
# decoder, two side by side, output thrown away), beside xz without its check (--ignore-check,
# which cudaenv skips too). From these the bench derives the least time an install that decodes
# as cudaenv does, checks and writes can take here: that decoding's CPU time plus that of the
# skipped work, spread over every core with none idle, a lower bound for cudaenv as it is.
# SETS="multi" or SETS="single" measures one set only.
set -euo pipefail

BUILD=$(cd "${1:-${CUDAENV_BUILD_DIR:-build}}" && pwd)
CUDAENV="$BUILD/cudaenv"
MIRROR_BIN="$BUILD/tests/test_mirror"
DECODER="$BUILD/bench/xz_decode"
ROUNDS=${ROUNDS:-5}
SETS=${SETS:-multi single}
LABEL=99.0.0
for tool in "$CUDAENV" "$MIRROR_BIN" "$DECODER"; do
  [ -x "$tool" ] || { echo "bench/install: $tool is missing; build first (ninja -C $BUILD)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench/install: /usr/bin/time is needed for the peak RSS (apt-get install time)" >&2; exit 1; }

COMPONENTS="libcublas:120 libcusparse:60 libcufft:45 cuda_nvcc:40 libnvjitlink:20 cuda_cudart:8 cuda_cccl:4 cuda_nvrtc:3"

write_manifest() {  # FIXTURE: redistrib_$LABEL.json naming every archive under FIXTURE/mirror
  local fixture=$1
  (cd "$fixture/mirror" && find . -name '*.tar.xz' -printf '%P\n' | sort | while read -r relative; do
    echo "${relative%%/*} $relative $(sha256sum "$relative" | cut -c1-64) $(stat -c %s "$relative")"
  done) | python3 -c '
import json, sys
manifest = {"release_date": "2099-01-01", "release_label": sys.argv[1], "release_product": "cuda"}
for line in sys.stdin:
    component, relative, sha, size = line.split()
    manifest[component] = {"name": component, "license": "CUDA Toolkit", "version": "1.0",
                           "linux-x86_64": {"relative_path": relative, "sha256": sha, "md5": "0" * 32, "size": size}}
print(json.dumps(manifest, indent=4))' "$LABEL" >"$fixture/mirror/redistrib_$LABEL.json"
  touch "$fixture/complete"
}

make_multi_block() {
  local fixture=$1
  echo "building the fixture in $fixture (once; a few minutes)..." >&2
  rm -rf "$fixture" && mkdir -p "$fixture/mirror"
  for spec in $COMPONENTS; do
    local component=${spec%%:*} megabytes=${spec##*:}
    local top="$component-linux-x86_64-1.0-archive"
    local tree="$fixture/tree/$top"
    mkdir -p "$tree/lib" "$fixture/mirror/$component/linux-x86_64"
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
    tar -C "$fixture/tree" -cf - "$top" | xz -T2 -1 >"$fixture/mirror/$component/linux-x86_64/$top.tar.xz"
    rm -rf "$fixture/tree"
  done
  write_manifest "$fixture"
}

make_single_block() {  # the multi-block fixture's archives, each rewritten as one block
  local fixture=$1 multi=$2
  echo "building the fixture in $fixture (once)..." >&2
  rm -rf "$fixture" && mkdir -p "$fixture/mirror"
  (cd "$multi/mirror" && find . -name '*.tar.xz' -printf '%P\n') | while read -r relative; do
    mkdir -p "$fixture/mirror/$(dirname "$relative")"
    python3 "$(dirname "$0")/xz_one_block.py" "$multi/mirror/$relative" >"$fixture/mirror/$relative"
  done
  write_manifest "$fixture"
}

MULTI="$BUILD/bench-install-fixture" SINGLE="$BUILD/bench-install-fixture-single-block"
[ -e "$MULTI/complete" ] || make_multi_block "$MULTI"
case " $SETS " in *" single "*) [ -e "$SINGLE/complete" ] || make_single_block "$SINGLE" "$MULTI" ;; esac

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cudaenv-bench.XXXXXX")
MIRROR_PID=
trap '[ -z "$MIRROR_PID" ] || kill $MIRROR_PID 2>/dev/null; rm -rf "$WORK"' EXIT

now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minimum() { printf '%s\n' "$@" | sort -g | head -1; }
maximum() { printf '%s\n' "$@" | sort -g | tail -1; }
ratio() { echo "$1 / $2" | bc -l; }

start_mirror() {  # FIXTURE: serve it, set URL and ARCHIVES (largest first)
  local fixture=$1
  [ -z "$MIRROR_PID" ] || kill "$MIRROR_PID" 2>/dev/null
  rm -f "$WORK/port"
  "$MIRROR_BIN" --root "$fixture/mirror" >"$WORK/port" &
  MIRROR_PID=$!
  for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
  URL="http://127.0.0.1:$(cat "$WORK/port")/"
  ARCHIVES=$(find "$fixture/mirror" -name '*.tar.xz' -printf '%s %p\n' | sort -rn | cut -d' ' -f2)
}

# Runs a command, its output thrown away; prints "WALL CPU PEAK_RSS_KB": seconds, seconds of user
# plus system time (children included), kB.
timed() {
  /usr/bin/time -f '%e %U %S %M' -o "$WORK/time.txt" "$@" >/dev/null || { cat "$WORK/install.log" >&2 2>/dev/null; exit 1; }
  awk '{ printf "%s %.2f %d\n", $1, $2 + $3, $4 }' "$WORK/time.txt"
}

floor_threaded() { timed xz -T2 -dc $ARCHIVES; }

floor_pair() { printf '%s\n' $ARCHIVES | timed xargs -P2 -n1 xz -T1 -dc; }

# The pair without xz's integrity check (CRC64 here), which cudaenv skips too: the sha256 of the
# whole archive, checked before decoding, already proves what it would.
decode_unchecked() { printf '%s\n' $ARCHIVES | timed xargs -P2 -n1 xz -T1 -dc --ignore-check; }

# The same with cudaenv's own decoder.
decode_as_cudaenv() { printf '%s\n' $ARCHIVES | timed xargs -P2 -n1 "$DECODER"; }

HASH="sha256sum"
command -v openssl >/dev/null && HASH="openssl dgst -sha256 -r"
cat >"$WORK/honest_one.sh" <<EOF
# URL SHA256 FILE DEST: what cudaenv install must do for one archive
set -euo pipefail
curl -sSf -o "\$3" "\$1"
[ "\$($HASH "\$3" | cut -c1-64)" = "\$2" ] || { echo "bench/install: \$1 does not match its sha256" >&2; exit 1; }
xz -T1 -dc "\$3" | tar -x -C "\$4" --strip-components=1
rm -f "\$3"
EOF

honest_jobs() {  # one line per archive, largest first: URL SHA256 FILE DEST
  local archive relative
  for archive in $ARCHIVES; do
    relative=${archive#"$FIXTURE/mirror/"}
    python3 -c 'import json, sys
for entry in json.load(open(sys.argv[1])).values():
    if isinstance(entry, dict) and entry["linux-x86_64"]["relative_path"] == sys.argv[2]: print(entry["linux-x86_64"]["sha256"])' \
      "$FIXTURE/mirror/redistrib_$LABEL.json" "$relative" |
      sed "s|^|$URL$relative |; s|\$| $WORK/honest/$(basename "$archive") $WORK/honest/tree|"
  done >"$WORK/honest-jobs"
}

floor_honest() {
  rm -rf "$WORK/honest" && mkdir -p "$WORK/honest/tree"
  timed xargs -P2 -n4 bash "$WORK/honest_one.sh" <"$WORK/honest-jobs"
}

# What cudaenv must do beyond decoding, which the decode floor skips, each step alone and one after
# the other so that no step slows another: receiving every archive into a file (one curl for all,
# the files removed), its sha256 ($HASH) and writing the decoded files (tar -x of the decoded tar,
# less reading that tar: cat of it). Prints the CPU seconds of each: RECEIVE SHA256 WRITE.
prepare_skipped() {  # once per set: each archive's tar, decoded
  rm -rf "$WORK/tars" && mkdir -p "$WORK/tars"
  local archive
  for archive in $ARCHIVES; do xz -T2 -dc "$archive" >"$WORK/tars/$(basename "$archive" .xz)"; done
}

work_skipped() {
  local receive sha write read
  rm -rf "$WORK/skipped" && mkdir -p "$WORK/skipped/tree" "$WORK/honest"
  receive=$(timed bash -c 'args=() files=()
    while read -r url _ file _; do args+=(-o "$file" "$url") files+=("$file"); done
    curl -sSf "${args[@]}" && rm -f "${files[@]}"' <"$WORK/honest-jobs")
  sha=$(timed $HASH $ARCHIVES)
  write=$(timed bash -c 'for tar in "$1"/*.tar; do tar -xf "$tar" -C "$2" --strip-components=1; done' - "$WORK/tars" "$WORK/skipped/tree")
  read=$(timed cat "$WORK"/tars/*.tar)
  rm -rf "$WORK/skipped"
  echo "${receive#* }" "${sha#* }" "${write#* }" "${read#* }" | awk '{ printf "%.2f %.2f %.2f\n", $1, $3, $5 - $7 }'
}

with_cudaenv() {
  rm -rf "$WORK/root"
  CUDAENV_ROOT="$WORK/root" NO_COLOR=1 timed "$CUDAENV" install "$LABEL" --mirror "$URL" --skip-manifest-pin \
    --platform linux-x86_64 --profile full 2>"$WORK/install.log"
}

baseline() {
  local dest="$WORK/baseline"
  rm -rf "$dest" && mkdir -p "$dest"
  local start=$(now) archive
  for archive in $ARCHIVES; do
    curl -sSf "$URL${archive#"$FIXTURE/mirror/"}" | tar -xJ -C "$dest" --strip-components=1
  done
  echo "$(now) - $start" | bc
}

printf 'bench/install: %d CPU cores, load average at start: %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
for set in $SETS; do
  case $set in
    multi) FIXTURE=$MULTI kind="multi-block (xz -T2)" ;;
    single) FIXTURE=$SINGLE kind="single-block (xz -T1)" ;;
    *) echo "bench/install: SETS names multi and single, not '$set'" >&2; exit 1 ;;
  esac
  start_mirror "$FIXTURE"
  honest_jobs
  prepare_skipped
  total=$(du -cb $ARCHIVES | tail -1 | cut -f1)
  cat $ARCHIVES >/dev/null  # in the page cache for every side
  threaded=() pair=() installs=() ratios=() cpu_ratios=() cpu_threaded=() cpu_pair=() cpu_installs=() peak_rss=0
  honest=() cpu_honest=() honest_ratios=() honest_cpu_ratios=()
  skipped_receive=() skipped_sha=() skipped_write=() skipped_shares=() with_skipped_ratios=()
  cpu_unchecked=() cpu_decoder=() decoder_ratios=() least=() least_ratios=() to_least_ratios=()
  for round in $(seq "$ROUNDS"); do
    # cudaenv runs first in even rounds, last in odd ones, so that a drift in the machine's
    # speed over a round does not favour one side.
    [ $((round % 2)) -eq 0 ] && read -r c c_cpu rss <<<"$(with_cudaenv)"
    read -r t t_cpu _ <<<"$(floor_threaded)"
    read -r p p_cpu _ <<<"$(floor_pair)"
    read -r h h_cpu _ <<<"$(floor_honest)"
    read -r k_receive k_sha k_write <<<"$(work_skipped)"
    read -r _ u_cpu _ <<<"$(decode_unchecked)"
    read -r _ d_cpu _ <<<"$(decode_as_cudaenv)"
    [ $((round % 2)) -eq 1 ] && read -r c c_cpu rss <<<"$(with_cudaenv)"
    threaded+=("$t") pair+=("$p") installs+=("$c") ratios+=("$(ratio "$c" "$(minimum "$t" "$p")")")
    cpu_threaded+=("$t_cpu") cpu_pair+=("$p_cpu") cpu_installs+=("$c_cpu")
    cpu_ratios+=("$(ratio "$c_cpu" "$(minimum "$t_cpu" "$p_cpu")")")
    honest+=("$h") cpu_honest+=("$h_cpu")
    honest_ratios+=("$(ratio "$c" "$h")") honest_cpu_ratios+=("$(ratio "$c_cpu" "$h_cpu")")
    skipped_receive+=("$k_receive") skipped_sha+=("$k_sha") skipped_write+=("$k_write")
    skipped_shares+=("$(echo "100 * ($k_receive + $k_sha + $k_write) / $(minimum "$t_cpu" "$p_cpu")" | bc -l)")
    with_skipped_ratios+=("$(ratio "$c_cpu" "($(minimum "$t_cpu" "$p_cpu") + $k_receive + $k_sha + $k_write)")")
    cpu_unchecked+=("$u_cpu") cpu_decoder+=("$d_cpu") decoder_ratios+=("$(ratio "$d_cpu" "$u_cpu")")
    least+=("$(echo "($d_cpu + $k_receive + $k_sha + $k_write) / $(nproc)" | bc -l)")
    least_ratios+=("$(ratio "${least[-1]}" "$(minimum "$t" "$p")")") to_least_ratios+=("$(ratio "$c" "${least[-1]}")")
    [ "$rss" -gt "$peak_rss" ] && peak_rss=$rss
    printf '  %s round %d: xz -T2 -dc %.2f s (CPU %.2f s), 2 x xz -dc %.2f s (CPU %.2f s), honest floor %.2f s (CPU %.2f s), cudaenv %.2f s (CPU %.2f s): %.3f x floor (CPU %.3f x), %.3f x honest floor (CPU %.3f x)\n' \
      "$set" "$round" "$t" "$t_cpu" "$p" "$p_cpu" "$h" "$h_cpu" "$c" "$c_cpu" "${ratios[-1]}" "${cpu_ratios[-1]}" \
      "${honest_ratios[-1]}" "${honest_cpu_ratios[-1]}"
  done
  b=$(baseline)
  diff -r -q "$WORK/baseline" "$WORK/root/versions/$LABEL" 2>/dev/null | grep -v -e 'Only in .*: cudaenv-install.json' \
    -e 'Only in .*: version.json' -e 'Only in .*: lib64' && { echo "bench/install: the two trees differ" >&2; exit 1; }
  mt=$(median "${threaded[@]}") mp=$(median "${pair[@]}") mc=$(median "${installs[@]}")
  floor=$(minimum "$mt" "$mp")
  printf '%s: %d archives, %.1f MB of .tar.xz, %d rounds (medians)\n' "$kind" "$(echo "$ARCHIVES" | wc -l)" \
    "$(echo "$total / 1000000" | bc -l)" "$ROUNDS"
  printf '  floor: xz -T2 -dc %.2f s (CPU %.2f s), two xz -dc side by side %.2f s (CPU %.2f s)\n' \
    "$mt" "$(median "${cpu_threaded[@]}")" "$mp" "$(median "${cpu_pair[@]}")"
  printf '  cudaenv install (--jobs 4, sha256-checked, files written): %.2f s (CPU %.2f s)\n' \
    "$mc" "$(median "${cpu_installs[@]}")"
  # The rounds' own ratios pair each install with the floors measured beside it, which a drift in
  # the machine's speed over the run moves least.
  printf '  ratio cudaenv/floor: %.3f (median of the rounds'"'"' ratios %.3f, rounds %.3f-%.3f; goal <= 1.05)\n' \
    "$(ratio "$mc" "$floor")" "$(median "${ratios[@]}")" "$(minimum "${ratios[@]}")" "$(maximum "${ratios[@]}")"
  # Load from others falls unevenly on the floors and cudaenv, which run one after the other;
  # CPU time is what it moves least.
  printf '  CPU time cudaenv/floor: %.3f (rounds %.3f-%.3f)\n' "$(median "${cpu_ratios[@]}")" \
    "$(minimum "${cpu_ratios[@]}")" "$(maximum "${cpu_ratios[@]}")"
  printf '  honest floor (curl to a file, sha256 checked, xz -dc | tar -x; two side by side): %.2f s (CPU %.2f s)\n' \
    "$(median "${honest[@]}")" "$(median "${cpu_honest[@]}")"
  printf '  ratio cudaenv/honest floor: %.3f (rounds %.3f-%.3f), CPU %.3f (rounds %.3f-%.3f)\n' \
    "$(ratio "$mc" "$(median "${honest[@]}")")" "$(minimum "${honest_ratios[@]}")" "$(maximum "${honest_ratios[@]}")" \
    "$(median "${honest_cpu_ratios[@]}")" "$(minimum "${honest_cpu_ratios[@]}")" "$(maximum "${honest_cpu_ratios[@]}")"
  # cudaenv is CPU-bound on both cores, so what these cost comes on top of the decode floor,
  # unless it fills time a floor leaves a core idle.
  printf '  work the decode floor skips, each step alone (CPU): receive %.2f s, sha256 %.2f s, write the files %.2f s: %.1f%% of the floor'"'"'s CPU (rounds %.1f-%.1f%%)\n' \
    "$(median "${skipped_receive[@]}")" "$(median "${skipped_sha[@]}")" "$(median "${skipped_write[@]}")" \
    "$(median "${skipped_shares[@]}")" "$(minimum "${skipped_shares[@]}")" "$(maximum "${skipped_shares[@]}")"
  printf '    CPU time cudaenv/(decode floor + that work): %.3f (rounds %.3f-%.3f)\n' "$(median "${with_skipped_ratios[@]}")" \
    "$(minimum "${with_skipped_ratios[@]}")" "$(maximum "${with_skipped_ratios[@]}")"
  printf '  decoding alone, two side by side, without the xz check: cudaenv'"'"'s decoder CPU %.2f s, xz'"'"'s %.2f s: %.3f (rounds %.3f-%.3f)\n' \
    "$(median "${cpu_decoder[@]}")" "$(median "${cpu_unchecked[@]}")" "$(median "${decoder_ratios[@]}")" \
    "$(minimum "${decoder_ratios[@]}")" "$(maximum "${decoder_ratios[@]}")"
  # A lower bound: no step can run in less CPU time than it takes alone, and the cores cannot give
  # more than their number of CPU seconds per second.
  printf '  the least an install that decodes as cudaenv does, checks sha256 and writes the files can take: %.2f s (that decoding plus the work above, over %d cores with none idle)\n' \
    "$(median "${least[@]}")" "$(nproc)"
  printf '    that least/floor: %.3f (rounds %.3f-%.3f); cudaenv/that least: %.3f (rounds %.3f-%.3f)\n' \
    "$(median "${least_ratios[@]}")" "$(minimum "${least_ratios[@]}")" "$(maximum "${least_ratios[@]}")" \
    "$(median "${to_least_ratios[@]}")" "$(minimum "${to_least_ratios[@]}")" "$(maximum "${to_least_ratios[@]}")"
  printf '  sequential curl | tar -xJ: %.2f s, ratio cudaenv/it %.2f (goal <= 0.8)\n' "$b" "$(ratio "$mc" "$b")"
  printf '  cudaenv peak RSS: %.1f MiB (goal <= 64 MiB)\n' "$(echo "$peak_rss / 1024" | bc -l)"
done
printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
