# Everything from the network is bounded: a slowloris server, an endless body, a 1 GB JSON and a
# manifest that drips forever end in a clear error within a bound and bounded memory; free space
# is checked before anything is downloaded; a .part that filled the disk is removed and the next
# run works.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

SMALL="$WORK/small"  # tmpfs mounts, where the test may mount them
trap 'stop_mirror; umount "$SMALL" 2>/dev/null; umount "$CUDAENV_ROOT/versions" 2>/dev/null; rm -rf "$WORK"' EXIT

add_fake_release 12.1.1
add_noise_component 12.1.1 cuda_nvtx 600
start_mirror
MANIFEST=/redistrib_12.1.1.json
NVCC_PATH=/cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.1.105-archive.tar.xz
NOISE_PATH=/$(cd "$MIRROR_ROOT" && ls cuda_nvtx/linux-x86_64/*)
export CUDAENV_DOWNLOAD_TIMEOUT=2 CUDAENV_TEXT_TIMEOUT=3

seconds_of() {  # seconds_of COMMAND...: runs it through run_capture; sets TOOK
  local start=$SECONDS
  run_capture "$@"
  TOOK=$((SECONDS - start))
  echo "took ${TOOK}s: $*"
}

peak_kb() {  # peak_kb COMMAND...: the peak resident memory of the command, in kB
  /usr/bin/time -f '%M' -o "$WORK/peak" "$@" >/dev/null 2>&1
  tail -1 "$WORK/peak"
  echo "peak $(tail -1 "$WORK/peak") kB: $*" >&2
}

# Slowloris: headers that never end. A text download has one deadline across its tries (3 s
# here), then a clear error.
echo "$MANIFEST slowloris" >"$FAULTS"
seconds_of "$CUDAENV" install 12.1.1 --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64
assert_eq 1 "$STATUS" "a slowloris manifest fails"
assert_contains "$ERR" "cannot download ${MIRROR_URL%/}$MANIFEST" "naming the URL"
assert_contains "$ERR" "no complete answer within 3 s, the deadline of a text download across all its tries (CUDAENV_TEXT_TIMEOUT)" \
  "and the deadline that ended it"
check "within a bound (one deadline of 3 s; took ${TOOK}s)" test "$TOOK" -lt 20
# A manifest that drips 2 kB a second forever passes the low-speed rule: only the deadline ends
# it, once, not once per try.
echo "$MANIFEST drip" >"$FAULTS"
: >"$REQUEST_LOG"
seconds_of "$CUDAENV" install 12.1.1 --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64
assert_eq 1 "$STATUS" "a dripping manifest fails"
assert_contains "$ERR" "cannot download ${MIRROR_URL%/}$MANIFEST: no complete answer within 3 s" "naming the URL and the deadline"
assert_contains "$ERR" "CUDAENV_TEXT_TIMEOUT" "and the setting that changes it"
assert_eq 1 "$(requests_for "$MANIFEST" | wc -l)" "one try used the whole deadline"
check "within a bound (one deadline of 3 s, not one per try; took ${TOOK}s)" test "$TOOK" -lt 20
check "nothing was installed" test ! -e "$CUDAENV_ROOT/versions/12.1.1"
echo "/ drip" >"$FAULTS"
seconds_of "$CUDAENV" list-remote --mirror "$MIRROR_URL" --bare --refresh
assert_eq 0 "$STATUS" "a dripping listing falls back to the releases cudaenv knows: $ERR"
assert_contains "$ERR" "no complete answer within 3 s" "saying why"
check "within a bound (took ${TOOK}s)" test "$TOOK" -lt 20
run_capture env CUDAENV_TEXT_TIMEOUT=1m "$CUDAENV" install 12.1.1 --mirror "$MIRROR_URL" --skip-manifest-pin \
  --platform linux-x86_64
assert_eq 1 "$STATUS" "a bad CUDAENV_TEXT_TIMEOUT is an error"
assert_contains "$ERR" "CUDAENV_TEXT_TIMEOUT='1m' is not a number of seconds" "naming the value"
echo "$NVCC_PATH slowloris" >"$FAULTS"
seconds_of "$CUDAENV" install 12.1.1 --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64
assert_eq 1 "$STATUS" "a slowloris archive fails"
assert_contains "$ERR" "cuda_nvcc: cannot download ${MIRROR_URL%/}$NVCC_PATH after 3 tries" "naming component and tries"
check "within a bound (took ${TOOK}s)" test "$TOOK" -lt 60
check "no staging left" no_staging_left

# An endless body: text stops at the 32 MiB cap, an archive at its manifest's size.
echo "$MANIFEST endless" >"$FAULTS"
seconds_of "$CUDAENV" install 12.1.1 --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64
assert_eq 1 "$STATUS" "an endless manifest fails"
assert_contains "$ERR" "${MIRROR_URL%/}$MANIFEST is larger than 32 MiB" "at the size cap"
KB=$(peak_kb "$CUDAENV" install 12.1.1 --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64)
check "memory stays bounded reading an endless manifest (peak ${KB} kB)" test "$KB" -lt 300000
echo "$MANIFEST huge-json" >"$FAULTS"
run_capture "$CUDAENV" install 12.1.1 --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64
assert_eq 1 "$STATUS" "a 1 GB JSON fails"
assert_contains "$ERR" "is larger than 32 MiB" "refused by its announced length"
KB=$(peak_kb "$CUDAENV" install 12.1.1 --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64)
check "memory stays bounded (peak ${KB} kB)" test "$KB" -lt 300000
echo "$NVCC_PATH endless" >"$FAULTS"
install_from_mirror 12.1.1
assert_eq 1 "$STATUS" "an endless archive fails"
assert_contains "$ERR" "bytes the manifest gives" "at the manifest's size"
check "its partial file is deleted" test -z "$(find "$CUDAENV_ROOT/cache" -name '*.part')"
echo "/ endless" >"$FAULTS"
run_capture "$CUDAENV" list-remote --mirror "$MIRROR_URL" --bare
assert_eq 0 "$STATUS" "an endless listing falls back: $ERR"
assert_contains "$ERR" "is larger than 32 MiB" "saying why"

run_capture env CUDAENV_DOWNLOAD_TIMEOUT=soon "$CUDAENV" install 12.1.1 --mirror "$MIRROR_URL" --skip-manifest-pin \
  --platform linux-x86_64
assert_eq 1 "$STATUS" "a bad CUDAENV_DOWNLOAD_TIMEOUT is an error"
assert_contains "$ERR" "CUDAENV_DOWNLOAD_TIMEOUT='soon' is not a number of seconds" "naming the value"
: >"$FAULTS"

mkdir -p "$SMALL" "$CUDAENV_ROOT/versions"
if mount -t tmpfs -o size=1m tmpfs "$CUDAENV_ROOT/versions" 2>/dev/null; then
  # Free space before downloading: 600 kB of noise unpacks to more than the 1 MB versions/ has.
  : >"$REQUEST_LOG"
  install_from_mirror 12.1.1 --component cuda_nvtx
  assert_eq 1 "$STATUS" "an install that cannot fit is refused"
  assert_contains "$ERR" "the downloads and unpacked files need about" "saying what it needs"
  assert_contains "$ERR" "but its file system has only" "and what is free"
  assert_eq 0 "$(requests_for .tar. | wc -l)" "before any archive is fetched"
  check "no staging left" no_staging_left
  umount "$CUDAENV_ROOT/versions"
else
  echo "not root or no tmpfs: free-space checks not run"
fi

if mount -t tmpfs -o size=1m tmpfs "$SMALL" 2>/dev/null; then
  # A disk that fills during the download: the .part is removed, the next run works.
  echo "$NOISE_PATH trickle" >"$FAULTS"
  "$CUDAENV" mirror sync 12.1.1 --component cuda_nvtx --to "$SMALL/m" --mirror "$MIRROR_URL" --skip-manifest-pin \
    --platform linux-x86_64 >"$WORK/sync.out" 2>"$WORK/sync.err" &
  SYNC=$!
  for i in $(seq 200); do
    [ -n "$(find "$SMALL/m" -name '*.part' -size +1k 2>/dev/null)" ] && break
    sleep 0.1
  done
  dd if=/dev/zero of="$SMALL/filler" bs=4k 2>/dev/null
  wait "$SYNC"
  assert_eq 1 "$?" "a sync whose disk fills fails"
  assert_contains "$(cat "$WORK/sync.err")" "(the partial file was removed)" "saying the partial file went"
  assert_eq "" "$(find "$SMALL/m" -name '*.part')" "no .part keeps the disk full"
  rm "$SMALL/filler"
  : >"$FAULTS"
  run_capture "$CUDAENV" mirror sync 12.1.1 --component cuda_nvtx --to "$SMALL/m" --mirror "$MIRROR_URL" \
    --skip-manifest-pin --platform linux-x86_64
  assert_eq 0 "$STATUS" "the next sync works once space is back: $ERR"
  check "the archive is whole" cmp "$MIRROR_ROOT$NOISE_PATH" "$SMALL/m$NOISE_PATH"
  umount "$SMALL"
else
  echo "not root or no tmpfs: disk-full checks not run"
fi
finish
