# A full disk anywhere leaves nothing half-written, names the file, and the next run works
# once there is space again: use, install (extraction and receipt) and rehash, on small
# tmpfs mounts (needs root) and with writes to one file failing (LD_PRELOAD).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
FULL="$WORK/full"
mkdir -p "$FULL"
mount -t tmpfs -o size=1m tmpfs "$FULL" 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'stop_mirror; umount "$FULL"; rm -rf "$WORK"' EXIT
resize() { mount -o remount,size="$1" "$FULL"; }
fill() { head -c 64m /dev/zero >"$FULL/filler" 2>/dev/null; }  # takes what space is left
temporaries() { find "$@" -name '.*.tmp-*' | wc -l; }

# rehash: CUDAENV_ROOT on the tmpfs, so each shim is a copy of cudaenv-shim (another file
# system), and the first copy does not fit.
export CUDAENV_ROOT="$FULL/root"
make_fake_toolkit "$WORK/tk/cuda-12.1" 12.1.1
mkdir -p "$CUDAENV_ROOT"
fill
run_capture "$CUDAENV" add "$WORK/tk/cuda-12.1"
assert_eq 1 "$STATUS" "add on a full disk fails at rehash"
assert_contains "$ERR" "cannot write $CUDAENV_ROOT/shims/" "rehash names the shim it could not write"
assert_contains "$ERR" "No space left on device" "and says the disk is full"
assert_eq 0 "$(temporaries "$CUDAENV_ROOT/shims")" "no half-written shim left"
resize 32m
run_capture "$CUDAENV" rehash
assert_eq 0 "$STATUS" "rehash once space is back: $ERR"
assert_contains "$(CUDAENV_VERSION=12.1 "$CUDAENV_ROOT/shims/nvcc" --version)" "release 12.1" "the copied shim works"

# use: a project on the full disk keeps its cuda.toml as it was.
mkdir -p "$FULL/proj"
printf '[cuda]\nversion = "11.8"  # ours\n' >"$FULL/proj/cuda.toml"
fill
(cd "$FULL/proj" && run_capture "$CUDAENV" use 12.1 && echo "$STATUS" >"$WORK/status" && echo "$ERR" >"$WORK/err")
assert_eq 1 "$(cat "$WORK/status")" "use on a full disk fails"
assert_contains "$(cat "$WORK/err")" "cannot write $FULL/proj/cuda.toml: No space left on device" "use names the file"
assert_contains "$(cat "$WORK/err")" "was left as it was" "and says it is untouched"
assert_eq '[cuda]
version = "11.8"  # ours' "$(cat "$FULL/proj/cuda.toml")" "cuda.toml is whole and unchanged"
assert_eq 0 "$(temporaries "$FULL/proj")" "no temporary left in the project"
rm "$FULL/filler"
(cd "$FULL/proj" && run_capture "$CUDAENV" use 12.1 && echo "$STATUS" >"$WORK/status")
assert_eq 0 "$(cat "$WORK/status")" "use once space is back"
assert_contains "$(cat "$FULL/proj/cuda.toml")" 'version = "12.1"  # ours' "the edit lands"

# install: an archive whose file does not fit when extracted (it compresses to almost
# nothing, so the download fits).
add_fake_release 12.4.1
mkdir -p "$WORK/parts/big/share"
head -c 24m /dev/zero >"$WORK/parts/big/share/big.bin"
add_component 12.4.1 cuda_big 1.0 "$WORK/parts/big"
write_manifest 12.4.1
start_mirror
fill
rm "$FULL/filler"
used_mb=$(( $(du -sm "$FULL" | cut -f1) + 8 ))
resize "${used_mb}m"
install_from_mirror 12.4.1 --component cuda_big
assert_eq 1 "$STATUS" "install on a full disk fails"
assert_contains "$ERR" "cuda_big: cannot write cuda_big-linux-x86_64-1.0-archive/share/big.bin into the staging folder" "the error names the member"
check "nothing installed" test ! -e "$CUDAENV_ROOT/versions/12.4.1"
check "no staging folder left" no_staging_left
resize 96m
install_from_mirror 12.4.1 --component cuda_big
assert_eq 0 "$STATUS" "install once space is back: $ERR"
assert_eq $((24 << 20)) "$(stat -c %s "$CUDAENV_ROOT/versions/12.4.1/share/big.bin")" "the big file is whole"

# The receipt: writes to it fail as on a full disk; the toolkit is not put in place without
# it, the install already there stays whole, and the next run works.
receipt="$CUDAENV_ROOT/versions/12.4.1/cudaenv-install.json"
before=$(cat "$receipt")
run_capture env LD_PRELOAD="$BUILD/tests/libfail_write.so" CUDAENV_TEST_ENOSPC=cudaenv-install.json \
  "$CUDAENV" install --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64 --force 12.4.1
assert_eq 1 "$STATUS" "install whose receipt cannot be written fails"
assert_contains "$ERR" "cudaenv-install.json: No space left on device" "the error names the receipt"
assert_eq "$before" "$(cat "$receipt")" "the installed toolkit keeps its receipt"
check "no staging folder left" no_staging_left
run_capture "$CUDAENV" install --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64 --force 12.4.1
assert_eq 0 "$STATUS" "the next install works: $ERR"
check "with a receipt" test -s "$receipt"

finish
