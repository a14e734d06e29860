#!/usr/bin/env bash
# bench/mirror.sh [BUILD_DIR]: `cudaenv mirror sync` and `mirror verify` against plain tools on
# the same files, from a loopback mirror (build/tests/test_mirror).
#
# Fixture: ~300 MB of incompressible "archives" (8 components, 3-120 MB; sync never unpacks them)
# in NVIDIA's redist layout, built once and cached in BUILD_DIR/bench-mirror-fixture.
# Prints, best of ROUNDS (default 2), with the ratio cudaenv/baseline:
#   first sync     vs  `curl -sf` of every file one after another, then `sha256sum` of them
#   re-sync        vs  `sha256sum` of every file (a re-sync downloads nothing, it re-hashes)
#   verify         vs  `sha256sum` of every file
set -euo pipefail

BUILD=$(cd "${1:-${CUDAENV_BUILD_DIR:-build}}" && pwd)
CUDAENV="$BUILD/cudaenv"
MIRROR_BIN="$BUILD/tests/test_mirror"
ROUNDS=${ROUNDS:-2}
FIXTURE="$BUILD/bench-mirror-fixture"
LABEL=99.0.0
for tool in "$CUDAENV" "$MIRROR_BIN"; do
  [ -x "$tool" ] || { echo "bench/mirror: $tool is missing; build first (ninja -C $BUILD)" >&2; exit 1; }
done
COMPONENTS="libcublas:120 libcusparse:60 libcufft:45 cuda_nvcc:40 libnvjitlink:20 cuda_cudart:8 cuda_cccl:4 cuda_nvrtc:3"

if [ ! -f "$FIXTURE/mirror/redistrib_$LABEL.json" ]; then
  rm -rf "$FIXTURE" && mkdir -p "$FIXTURE/mirror"
  for spec in $COMPONENTS; do
    component=${spec%%:*} megabytes=${spec##*:}
    relative="$component/linux-x86_64/$component-linux-x86_64-1.0-archive.tar.xz"
    mkdir -p "$FIXTURE/mirror/${relative%/*}"
    head -c "${megabytes}M" /dev/urandom >"$FIXTURE/mirror/$relative"
    printf '%s %s %s %s\n' "$component" "$relative" "$(sha256sum "$FIXTURE/mirror/$relative" | cut -c1-64)" \
      "$(stat -c %s "$FIXTURE/mirror/$relative")" >>"$FIXTURE/files.txt"
  done
  python3 -c '
import json, sys
manifest = {"release_date": "2099-01-01", "release_label": sys.argv[1], "release_product": "cuda"}
for line in open(sys.argv[2]):
    component, relative, sha, size = line.split()
    manifest[component] = {"name": component, "license": "CUDA Toolkit", "version": "1.0",
                           "linux-x86_64": {"relative_path": relative, "sha256": sha, "md5": "0" * 32, "size": size}}
print(json.dumps(manifest, indent=4))' "$LABEL" "$FIXTURE/files.txt" >"$FIXTURE/mirror/redistrib_$LABEL.json"
fi

WORK=$(mktemp -d)
"$MIRROR_BIN" --root "$FIXTURE/mirror" >"$WORK/port" &
MIRROR_PID=$!
trap 'kill $MIRROR_PID 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
URL="http://127.0.0.1:$(cat "$WORK/port")/"

seconds() { local start=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || { echo "bench/mirror: $* failed" >&2; exit 1; }; echo "$EPOCHREALTIME - $start" | bc; }
best() { sort -n | head -1; }
sync_into() { NO_COLOR=1 "$CUDAENV" mirror sync "$LABEL" --to "$1" --mirror "$URL" --skip-manifest-pin --platform linux-x86_64 --profile full; }
curl_all() {
  while read -r _ relative _ _; do
    mkdir -p "$1/${relative%/*}" && curl -sf -o "$1/$relative" "$URL$relative"
  done <"$FIXTURE/files.txt"
  (cd "$1" && find . -name '*.tar.xz' -exec sha256sum {} + >/dev/null)
}
hash_all() { (cd "$1" && find . -name '*.tar.xz' -exec sha256sum {} + >/dev/null); }

first=() base_first=() resync=() base_hash=() verify=()
for _ in $(seq "$ROUNDS"); do
  rm -rf "$WORK/a" "$WORK/b"
  first+=("$(seconds sync_into "$WORK/a")")
  base_first+=("$(seconds curl_all "$WORK/b")")
  resync+=("$(seconds sync_into "$WORK/a")")
  verify+=("$(seconds "$CUDAENV" mirror verify "$WORK/a")")
  base_hash+=("$(seconds hash_all "$WORK/a")")
done
report() {  # report NAME CUDAENV_TIMES... -- BASELINE_TIMES...
  local name=$1; shift
  local ours=() theirs=() side=ours
  for t in "$@"; do [ "$t" = -- ] && { side=theirs; continue; }; eval "$side+=(\"\$t\")"; done
  local a b
  a=$(printf '%s\n' "${ours[@]}" | best) b=$(printf '%s\n' "${theirs[@]}" | best)
  printf '%-10s cudaenv %6.2f s   baseline %6.2f s   ratio %.2f\n' "$name" "$a" "$b" "$(echo "$a / $b" | bc -l)"
}
echo "bench/mirror: $(du -sm "$FIXTURE/mirror" | cut -f1) MB, 8 archives, best of $ROUNDS"
report "sync" "${first[@]}" -- "${base_first[@]}"
report "re-sync" "${resync[@]}" -- "${base_hash[@]}"
report "verify" "${verify[@]}" -- "${base_hash[@]}"
