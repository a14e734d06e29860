# Download faults from the loopback mirror: each is retried, resumed or refused as it should be,
# and a failed install leaves no versions/ entry and no shim.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

add_fake_release 12.1.1
add_noise_component 12.1.1 cuda_nvtx 256
start_mirror
NVCC_PATH=/cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.1.105-archive.tar.xz
NOISE_PATH=$(cd "$MIRROR_ROOT" && ls cuda_nvtx/linux-x86_64/*)

failed_cleanly() {  # failed_cleanly WHAT
  assert_eq 1 "$STATUS" "$1 fails"
  check "$1: no versions entry" test ! -e "$CUDAENV_ROOT/versions/12.1.1"
  check "$1: no staging left" no_staging_left
  check "$1: no shim" test ! -e "$CUDAENV_ROOT/shims/nvcc"
}

installed_cleanly() {  # installed_cleanly WHAT
  assert_eq 0 "$STATUS" "$1: install succeeds: $ERR"
  check "$1: nvcc installed" test -x "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc"
  check "$1: noise archive intact" cmp -s "$WORK/parts/12.1.1/cuda_nvtx/share/cuda_nvtx.bin" \
    "$CUDAENV_ROOT/versions/12.1.1/share/cuda_nvtx.bin"
  rm -rf "$CUDAENV_ROOT/versions/12.1.1"
  "$CUDAENV" rehash >/dev/null 2>&1
  : >"$REQUEST_LOG"
}

# 404: a 4xx is never retried; the error names the component, the URL and the fix.
echo "$NVCC_PATH 404" >"$FAULTS"
install_from_mirror 12.1.1 --component cuda_nvtx
failed_cleanly "404"
assert_contains "$ERR" "cuda_nvcc: cannot download ${MIRROR_URL%/}$NVCC_PATH: HTTP 404" "404 names component and URL"
assert_contains "$ERR" "--mirror" "404 names the fix"
assert_eq 1 "$(requests_for "$NVCC_PATH" | wc -l)" "404 is not retried"
: >"$REQUEST_LOG"

# 500 twice, then OK: retried with backoff.
echo "$NVCC_PATH 500 2" >"$FAULTS"
install_from_mirror 12.1.1 --component cuda_nvtx
assert_contains "$ERR" "HTTP 500; try 2 of 3" "retry is logged"
assert_eq 3 "$(requests_for "$NVCC_PATH" | wc -l)" "500 retried until OK"
installed_cleanly "500-then-OK"

# 500 forever: gives up after 3 tries, names the partial file to resume.
echo "$NVCC_PATH 500" >"$FAULTS"
install_from_mirror 12.1.1
failed_cleanly "500 forever"
assert_contains "$ERR" "after 3 tries: HTTP 500" "gives up after 3 tries"
assert_contains "$ERR" "run the same command again to resume" "the fix is named"
: >"$REQUEST_LOG"

# Connection reset mid-body: the retry resumes with a Range request.
echo "/$NOISE_PATH reset 1" >"$FAULTS"
install_from_mirror 12.1.1 --component cuda_nvtx
assert_contains "$(requests_for "$NOISE_PATH" | tail -1)" "range=131" "reset: the retry resumes where the body stopped"
installed_cleanly "reset mid-body"

# Truncated body (clean close before Content-Length): resumed the same way.
echo "/$NOISE_PATH truncate 1" >"$FAULTS"
install_from_mirror 12.1.1 --component cuda_nvtx
assert_contains "$(requests_for "$NOISE_PATH" | tail -1)" "range=131" "truncated: the retry resumes"
installed_cleanly "truncated body"

# A server that cannot resume: the partial file is dropped and fetched whole.
echo "/$NOISE_PATH truncate 1" >"$FAULTS"
echo "/$NOISE_PATH no-range" >>"$FAULTS"
install_from_mirror 12.1.1 --component cuda_nvtx
installed_cleanly "no Range support"

# A server that cannot resume and then sends other bytes: the extraction has read the first ones
# already, so the download from the first byte again must bring the same; it does not, so the
# install fails and the file is deleted.
echo "/$NOISE_PATH truncate 1" >"$FAULTS"
echo "/$NOISE_PATH no-range-corrupt" >>"$FAULTS"
install_from_mirror 12.1.1 --component cuda_nvtx
failed_cleanly "other bytes on a restart"
assert_contains "$ERR" "cuda_nvtx: ${MIRROR_URL}$NOISE_PATH sent other bytes when its download started again from the first byte" \
  "the changed bytes are named"
check "the changed download deleted" test -z "$(find "$CUDAENV_ROOT/cache" -name 'cuda_nvtx*')"
: >"$REQUEST_LOG"

# Wrong sha256: refused before extraction, the file deleted, both hashes shown.
echo "/$NOISE_PATH corrupt" >"$FAULTS"
install_from_mirror 12.1.1 --component cuda_nvtx
failed_cleanly "wrong sha256"
assert_contains "$ERR" "cuda_nvtx: ${MIRROR_URL}$NOISE_PATH has sha256" "sha mismatch names component and URL"
assert_contains "$ERR" "manifest says $(sha256sum "$MIRROR_ROOT/$NOISE_PATH" | cut -c1-64)" "expected hash shown"
check "corrupt download deleted" test -z "$(find "$CUDAENV_ROOT/cache" -name 'cuda_nvtx*')"
: >"$REQUEST_LOG"

# Slow trickle: still completes (and is verified).
echo "$NVCC_PATH trickle" >"$FAULTS"
install_from_mirror 12.1.1 --component cuda_nvtx
installed_cleanly "slow trickle"

# The manifest itself: 404 says the release may not exist.
rm -f "$FAULTS" && : >"$FAULTS"
install_from_mirror 12.6.3
assert_eq 1 "$STATUS" "missing manifest fails"
assert_contains "$ERR" "redistrib_12.6.3.json: HTTP 404" "missing manifest names the URL"
assert_contains "$ERR" "list-remote" "missing manifest names the fix"

finish
