#!/usr/bin/env bash
# bench/ci_cache.sh [BUILD_DIR]: the figures of the GitHub job in docs/guide.md for `cudaenv install --locked`
# of CUDA 12.1.1's `torch` profile plus cuDNN 9.10 from a loopback mirror (build/tests/test_mirror):
# a cold job (nothing cached: every archive downloaded and unpacked), the cache save that follows
# it (actions/cache: `tar | zstd -T0 --long=30` of CUDAENV_ROOT/versions/<label>), and a job that
# restores that cache (`zstd -d | tar -x`) and runs `install --locked`, which then finds the toolkit
# installed as locked and downloads nothing.
#
# Fixture (bench/ci_cache_fixture.py, built once into BUILD_DIR/bench-ci-cache-fixture): 14 archives
# in NVIDIA's layout (cuda/redist/ and cudnn/redist/ side by side) sized like the real ones, about
# 2.2 GB, of incompressible bytes, so the unpacked tree is about as large as the archives (the real
# toolkit unpacks to 2-3x its archives) and zstd saves nothing on it. SCALE=0.01 makes a 22 MB
# trial. ROUNDS (default 1) repeats the jobs; medians are printed. Needs zstd; about 4x the fixture
# in free disk space under TMPDIR.
set -euo pipefail

BUILD=$(cd "${1:-${CUDAENV_BUILD_DIR:-build}}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
CUDAENV="$BUILD/cudaenv"
MIRROR_BIN="$BUILD/tests/test_mirror"
ROUNDS=${ROUNDS:-1}
SCALE=${SCALE:-1}
FIXTURE="$BUILD/bench-ci-cache-fixture-$SCALE"
for tool in "$CUDAENV" "$MIRROR_BIN"; do
  [ -x "$tool" ] || { echo "bench/ci_cache: $tool is missing; build first (ninja -C $BUILD)" >&2; exit 1; }
done
command -v zstd >/dev/null || { echo "bench/ci_cache: zstd is needed (apt-get install zstd)" >&2; exit 1; }

if [ ! -f "$FIXTURE/complete" ]; then
  echo "building the fixture in $FIXTURE (once)..." >&2
  rm -rf "$FIXTURE"
  python3 "$HERE/ci_cache_fixture.py" "$FIXTURE/mirror" "$SCALE" >"$FIXTURE.bytes"
  touch "$FIXTURE/complete"
fi

WORK=$(mktemp -d)
"$MIRROR_BIN" --root "$FIXTURE/mirror" --faults /dev/null --log "$WORK/requests.log" >"$WORK/port" &
MIRROR_PID=$!
trap 'kill $MIRROR_PID 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
export CUDAENV_MIRROR="http://127.0.0.1:$(cat "$WORK/port")/cuda/redist/"
# The fixture's manifests are not NVIDIA's (as a private mirror's own), so both locking them and
# installing from the lock skip the shipped pins; every archive is still checked against the lock.
export CUDAENV_SKIP_MANIFEST_PIN=1
unset CUDAENV_CUDNN_MIRROR CUDAENV_VERSION
export HOME="$WORK/home"
mkdir -p "$HOME" "$WORK/project"
cd "$WORK/project"
printf '[cuda]\nversion = "12.1.1"\nprofile = "torch"\nlibraries = ["cudnn@9.10"]\n' >cuda.toml
CUDAENV_ROOT="$WORK/lock-root" "$CUDAENV" lock --platform linux-x86_64 >/dev/null
KEY=$(CUDAENV_ROOT="$WORK/lock-root" "$CUDAENV" lock --hash --platform linux-x86_64)
LABEL=${KEY#cuda-}
LABEL=${LABEL%%-*}
ARCHIVE_BYTES=$(awk '/^size = /{s += $3} END {print s}' cuda.lock)

now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", b - a}'; }
median() { tr ' ' '\n' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
gb() { awk -v b="$1" 'BEGIN {printf "%.2f GB", b / 1e9}'; }

cold=() save=() restore=() warm=() cache_bytes=0 warm_requests=0
for round in $(seq "$ROUNDS"); do
  rm -rf "$WORK/cold" "$WORK/warm" "$WORK/cache.tzst"
  # A cold job: an empty CUDAENV_ROOT, the cache missed.
  start=$(now)
  CUDAENV_ROOT="$WORK/cold" "$CUDAENV" install --locked --platform linux-x86_64 2>"$WORK/cold.log" ||
    { cat "$WORK/cold.log" >&2; exit 1; }
  cold+=("$(seconds "$start" "$(now)")")
  # Its post step: actions/cache saves versions/<label> (tar piped to zstd, as the action does).
  start=$(now)
  tar -C "$WORK/cold/versions" -cf - "$LABEL" | zstd -q -T0 --long=30 -o "$WORK/cache.tzst"
  save+=("$(seconds "$start" "$(now)")")
  cache_bytes=$(stat -c %s "$WORK/cache.tzst")
  # A later job on a fresh runner: the cache restored, then the same install step.
  mkdir -p "$WORK/warm/versions"
  start=$(now)
  zstd -q -d --long=30 -c "$WORK/cache.tzst" | tar -C "$WORK/warm/versions" -xf -
  restore+=("$(seconds "$start" "$(now)")")
  : >"$WORK/requests.log"
  start=$(now)
  CUDAENV_ROOT="$WORK/warm" "$CUDAENV" install --locked --platform linux-x86_64 2>"$WORK/warm.log"
  warm+=("$(seconds "$start" "$(now)")")
  grep -q "already installed" "$WORK/warm.log" || { cat "$WORK/warm.log" >&2; exit 1; }
  warm_requests=$(wc -l <"$WORK/requests.log")
  cmp -s "$WORK/cold/versions/$LABEL/cudaenv-install.json" "$WORK/warm/versions/$LABEL/cudaenv-install.json" ||
    { echo "bench/ci_cache: the restored receipt differs" >&2; exit 1; }
  echo "round $round: cold ${cold[-1]} s, save ${save[-1]} s, restore ${restore[-1]} s + install ${warm[-1]} s" >&2
done

COLD=$(echo "${cold[*]}" | median) SAVE=$(echo "${save[*]}" | median)
RESTORE=$(echo "${restore[*]}" | median) WARM=$(echo "${warm[*]}" | median)
echo "CUDA $LABEL, torch profile + cuDNN 9.10 ($(grep -c '^\[\[' cuda.lock) archives, $(gb "$ARCHIVE_BYTES")), loopback mirror, $ROUNDS round(s), medians:"
echo "  cold job:      install --locked ${COLD} s, $(gb "$ARCHIVE_BYTES") downloaded and unpacked"
echo "  cache save:    ${SAVE} s, $(gb "$cache_bytes") of tar.zst"
echo "  restored job:  restore ${RESTORE} s + install --locked ${WARM} s = $(awk -v a="$RESTORE" -v b="$WARM" 'BEGIN {printf "%.2f", a + b}') s, 0 bytes downloaded ($warm_requests requests to the mirror)"
