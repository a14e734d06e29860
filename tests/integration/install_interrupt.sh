# Faults of the installing process itself: kill -9 then resume, Ctrl-C (SIGINT) cleanup, and
# two installs of the same version at once.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

add_fake_release 12.1.1
add_noise_component 12.1.1 cuda_nvtx 120
add_fake_release 11.8.0
start_mirror
NOISE_PATH=$(cd "$MIRROR_ROOT" && ls cuda_nvtx/linux-x86_64/*)
PART="$CUDAENV_ROOT/cache/12.1.1/$(basename "$NOISE_PATH").part"
ARGS=(install 12.1.1 --component cuda_nvtx --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64)

wait_for_partial() {  # until the trickled archive has some bytes on disk
  wait_until 20 test -s "$PART"
}

# kill -9 mid-download: the next run cleans the stale staging folder and resumes with Range.
echo "/$NOISE_PATH trickle" >"$FAULTS"
"$CUDAENV" "${ARGS[@]}" 2>"$WORK/killed.err" &
VICTIM=$!
check "download under way" wait_for_partial
kill -9 "$VICTIM"
wait "$VICTIM" 2>/dev/null
check "killed run left its staging folder" test -d "$CUDAENV_ROOT/versions/.staging-12.1.1-$VICTIM"
check "killed run left no versions entry" test ! -e "$CUDAENV_ROOT/versions/12.1.1"
KEPT=$(stat -c %s "$PART")
: >"$FAULTS"
: >"$REQUEST_LOG"
run_capture "$CUDAENV" "${ARGS[@]}"
assert_eq 0 "$STATUS" "the next run succeeds: $ERR"
assert_contains "$ERR" "removing stale $CUDAENV_ROOT/versions/.staging-12.1.1-$VICTIM" "stale staging reported"
check "stale staging removed" no_staging_left
assert_contains "$(requests_for "$NOISE_PATH")" "range=$KEPT" "the download resumed at the kept $KEPT bytes"
assert_contains "$ERR" "resuming at" "resume reported"
check "resumed archive intact" cmp -s "$WORK/parts/12.1.1/cuda_nvtx/share/cuda_nvtx.bin" \
  "$CUDAENV_ROOT/versions/12.1.1/share/cuda_nvtx.bin"

# Ctrl-C: staging removed, partial download kept, exit 130, nothing installed.
rm -rf "$CUDAENV_ROOT/versions/12.1.1" "$CUDAENV_ROOT/cache"
"$CUDAENV" rehash >/dev/null 2>&1
echo "/$NOISE_PATH trickle" >"$FAULTS"
"$CUDAENV" "${ARGS[@]}" 2>"$WORK/int.err" &
VICTIM=$!
check "download under way" wait_for_partial
kill -INT "$VICTIM"
wait "$VICTIM"
assert_eq 130 "$?" "SIGINT exits 130"
assert_contains "$(cat "$WORK/int.err")" "interrupted" "SIGINT reported"
check "SIGINT removes staging" no_staging_left
check "SIGINT keeps the partial download" test -s "$PART"
check "SIGINT installs nothing" test ! -e "$CUDAENV_ROOT/versions/12.1.1"
check "SIGINT changes no shim" test ! -e "$CUDAENV_ROOT/shims/nvcc"

# Two installs of the same version at once: one installs, the other waits and reports it.
rm -rf "$CUDAENV_ROOT/cache"
"$CUDAENV" "${ARGS[@]}" 2>"$WORK/first.err" &
FIRST=$!
"$CUDAENV" "${ARGS[@]}" 2>"$WORK/second.err" &
SECOND=$!
# A different version at the same time is not held up by the lock of 12.1.1.
"$CUDAENV" install 11.8 --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64 2>"$WORK/other.err" &
OTHER=$!
wait "$FIRST"
assert_eq 0 "$?" "first concurrent install exits 0"
wait "$SECOND"
assert_eq 0 "$?" "second concurrent install exits 0"
wait "$OTHER"
assert_eq 0 "$?" "a different version installs in parallel: $(cat "$WORK/other.err")"
BOTH="$(cat "$WORK/first.err" "$WORK/second.err")"
assert_eq 1 "$(grep -c 'installed CUDA 12.1.1 in' <<<"$BOTH")" "exactly one installs"
assert_eq 1 "$(grep -c 'CUDA 12.1.1 is already installed' <<<"$BOTH")" "the other reports it installed"
check "concurrent result intact" cmp -s "$WORK/parts/12.1.1/cuda_nvtx/share/cuda_nvtx.bin" \
  "$CUDAENV_ROOT/versions/12.1.1/share/cuda_nvtx.bin"
check "both versions installed" test -x "$CUDAENV_ROOT/versions/11.8.0/bin/nvcc"
check "no staging left" no_staging_left

# While another process holds the lock, install says what it waits for, then proceeds.
rm -rf "$CUDAENV_ROOT/versions/12.1.1"
: >"$FAULTS"
# A POSIX (fcntl) lock, the kind cudaenv takes, held by python until its stdin closes.
exec 9> >(exec python3 -c 'import fcntl, sys
lock = open(sys.argv[1], "w")
fcntl.lockf(lock, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
sys.stdin.read()' "$CUDAENV_ROOT/locks/install-12.1.1" "$WORK/holder.ready")
for _ in $(seq 200); do [ -e "$WORK/holder.ready" ] && break; sleep 0.05; done
"$CUDAENV" "${ARGS[@]}" 2>"$WORK/waiter.err" 9>&- &
WAITER=$!
for _ in $(seq 200); do grep -q "waiting for it to finish" "$WORK/waiter.err" && break; sleep 0.05; done
assert_contains "$(cat "$WORK/waiter.err")" "another cudaenv is installing CUDA 12.1.1; waiting" "the wait is explained"
check "nothing installed while waiting" test ! -e "$CUDAENV_ROOT/versions/12.1.1"
exec 9>&-
wait "$WAITER"
assert_eq 0 "$?" "the waiter installs once the lock is free"
check "the waiter installed" test -x "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc"

finish
