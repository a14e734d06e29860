# NCCL as a library of a toolkit, from NVIDIA's wheels (nvidia-nccl-cu12 / -cu13) on a loopback
# package index built here: the wheel for the toolkit's major, its nvidia/nccl/{include,lib} in
# the toolkit's tree with the libnccl.so link a real link needs, hashes checked, hostile wheels
# refused, the lock and `install --locked` from it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
command -v cc >/dev/null || skip "no C compiler to build the stand-in libnccl.so.2"

# A real shared library, so that linking with -lnccl and running the program proves the layout.
printf 'int ncclGetVersion(int *v) { *v = 22809; return 0; }\n' >"$WORK/nccl.c"
cc -shared -fPIC -Wl,-soname,libnccl.so.2 -o "$WORK/libnccl.so.2" "$WORK/nccl.c"
wheels nccl 2.27.7 12 "$WORK/libnccl.so.2"
wheels nccl 2.28.9 12 "$WORK/libnccl.so.2"
wheels pages
add_fake_release 12.4.1
add_fake_release 13.0.0
start_mirror
INDEX="${MIRROR_URL}simple"
export CUDAENV_MIRROR="$MIRROR_URL" CUDAENV_SKIP_MANIFEST_PIN=1

nccl_install() { run_capture "$CUDAENV" install --platform linux-x86_64 --index-url "$INDEX" "$@"; }

# --- the newest wheel for the toolkit's major, into its tree ---
nccl_install 12.4.1 --library nccl
assert_eq 0 "$STATUS" "install 12.4.1 --library nccl: $ERR"
HOME124="$CUDAENV_ROOT/versions/12.4.1"
check "nccl.h in the toolkit's include/" grep -q "NCCL_MINOR 28" "$HOME124/include/nccl.h"
check "libnccl.so.2 in its lib/" test -f "$HOME124/lib/libnccl.so.2"
assert_eq "libnccl.so.2" "$(readlink "$HOME124/lib/libnccl.so")" "the libnccl.so link -lnccl needs"
check "found through lib64 too" test -e "$HOME124/lib64/libnccl.so"
check "no python files from the wheel" test -z "$(find "$HOME124" -name '*.py')"
check "no nvidia/ folder" test ! -e "$HOME124/nvidia"
check "no .dist-info" test -z "$(find "$HOME124" -name '*.dist-info')"
RECEIPT=$(cat "$HOME124/cudaenv-install.json")
WHEEL=nvidia_nccl_cu12-2.28.9-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
assert_contains "$RECEIPT" '"distribution": "nvidia-nccl-cu12"' "receipt: the wheel's project"
assert_contains "$RECEIPT" "\"wheel\": \"$WHEEL\"" "receipt: the x86_64 wheel"
assert_contains "$RECEIPT" "$(sha256sum "$INDEX_ROOT/files/$WHEEL" | cut -c1-64)" "receipt: its sha256"
printf '#include <nccl.h>\n#include <stdio.h>\nint main(void) { int v = 0; ncclGetVersion(&v); printf("%%d\\n", v); return 0; }\n' \
  >"$WORK/use_nccl.c"
check "a program compiles and links against the toolkit's NCCL" \
  cc -o "$WORK/use_nccl" "$WORK/use_nccl.c" -I"$HOME124/include" -L"$HOME124/lib64" -lnccl
assert_eq "22809" "$(LD_LIBRARY_PATH="$HOME124/lib64" "$WORK/use_nccl")" "and runs with the toolkit's LD_LIBRARY_PATH"

# --- a version prefix, through PIP_INDEX_URL ---
ROOT_P="$WORK/prefix-root"
CUDAENV_ROOT="$ROOT_P" run_capture env PIP_INDEX_URL="$INDEX" "$CUDAENV" install 12.4.1 --platform linux-x86_64 --library nccl@2.27
assert_eq 0 "$STATUS" "nccl@2.27 from PIP_INDEX_URL: $ERR"
check "2.27.7 was installed" grep -q "NCCL_MINOR 27" "$ROOT_P/versions/12.4.1/include/nccl.h"
# doctor's fix, `install LABEL --library nccl@X.Y`, changes an installed library's version in place.
CUDAENV_ROOT="$ROOT_P" nccl_install 12.4.1 --library nccl@2.28
assert_eq 0 "$STATUS" "install --library nccl@2.28 over 2.27: $ERR"
assert_not_contains "$ERR" "already installed" "a library at another version is not what was asked for"
check "2.28.9 replaced 2.27.7" grep -q "NCCL_MINOR 28" "$ROOT_P/versions/12.4.1/include/nccl.h"
check "the toolkit's components are kept" test -x "$ROOT_P/versions/12.4.1/bin/nvcc"
CUDAENV_ROOT="$ROOT_P" nccl_install 12.4.1 --library nccl
assert_contains "$ERR" "already installed" "an unversioned nccl is covered by any"
CUDAENV_ROOT="$ROOT_P" nccl_install 12.4.1 --force --library nccl@2.26
assert_eq 2 "$STATUS" "an NCCL version the index lacks is a usage error"
assert_contains "$ERR" "no NCCL release matches 2.26" "naming the version"
assert_contains "$ERR" "2.28.9, 2.27.7" "and the releases offered"

# --- no wheel for the toolkit's major: the error names the majors that have one ---
nccl_install 13.0.0 --library nccl
assert_eq 1 "$STATUS" "no nvidia-nccl-cu13 on the index"
assert_contains "$ERR" "NCCL has no wheel for CUDA 13 on $INDEX" "the toolkit's major is named"
assert_contains "$ERR" "it has wheels for CUDA 12" "and the majors that have one"
check "nothing of 13.0.0 installed" test ! -e "$CUDAENV_ROOT/versions/13.0.0"

# 410 Gone is as missing as 404; a page the index fails to serve (500) is said as it is, without
# asking for the other majors' pages.
echo "/simple/nvidia-nccl-cu13/ 410" >"$FAULTS"
nccl_install 13.0.0 --library nccl
assert_contains "$ERR" "NCCL has no wheel for CUDA 13 on $INDEX" "a page gone (410) is a missing wheel"
echo "/simple/nvidia-nccl-cu13/ 500" >"$FAULTS"
: >"$REQUEST_LOG"
nccl_install 13.0.0 --library nccl
assert_eq 1 "$STATUS" "an index that fails its page fails the install"
assert_contains "$ERR" "nvidia-nccl-cu13/: HTTP 500" "naming the page and the status"
assert_not_contains "$ERR" "it has wheels for" "without guessing at majors"
assert_not_contains "$(cat "$REQUEST_LOG")" "nvidia-nccl-cu12" "nor asking for another major's page"
: >"$FAULTS"

# An index that cannot be reached is said as it is (no page of another major asked for).
run_capture "$CUDAENV" install 13.0.0 --platform linux-x86_64 --library nccl --index-url http://127.0.0.1:9/simple
assert_eq 1 "$STATUS" "an unreachable index fails the install"
assert_contains "$ERR" "http://127.0.0.1:9/simple/nvidia-nccl-cu13/" "naming the page"
assert_not_contains "$ERR" "it has wheels for" "without guessing at majors"
assert_not_contains "$ERR" "internal error" "cleanly"

# --- hashes: a wrong one and a missing one are refused, the old install kept ---
wheels pages --wrong-hash nvidia-nccl-cu12
nccl_install 12.4.1 --force --library nccl
assert_eq 1 "$STATUS" "a wheel whose bytes differ from the index's sha256 is refused"
assert_contains "$ERR" "nvidia_nccl_cu12-2.28.9" "the wheel is named"
check "the installed toolkit is kept" test -f "$HOME124/lib/libnccl.so.2"
check "no staging left after a bad hash" no_staging_left
wheels pages --no-hash nvidia-nccl-cu12
nccl_install 12.4.1 --force --library nccl
assert_eq 1 "$STATUS" "a wheel listed without a sha256 is refused"
assert_contains "$ERR" "without a sha256" "and says so"
assert_contains "$ERR" "nvidia_nccl_cu12-2.28.9" "naming the wheel"

# --- a hostile wheel: '..' in a member path ---
wheels hostile nvidia-nccl-cu12 2.28.9 "nvidia/nccl/lib/../../../../../escaped.txt"
wheels pages
nccl_install 12.4.1 --force --library nccl
assert_eq 1 "$STATUS" "a wheel with a traversal member is refused"
assert_contains "$ERR" "'..'" "the refusal names the member"
check "nothing escaped" test -z "$(find "$WORK" -name escaped.txt)"
check "no staging left after a hostile wheel" no_staging_left
check "the installed toolkit is kept" test -f "$HOME124/lib/libnccl.so.2"
wheels nccl 2.28.9 12 "$WORK/libnccl.so.2"  # the clean wheel again
wheels pages

# --- cuda.lock records the wheel; --locked installs it from the configured index without
# reading a page (the wheel is on the index's own host) ---
mkdir -p "$WORK/project" && cd "$WORK/project" || exit 1
printf '[cuda]\nversion = "12.4"\nlibraries = ["nccl@2.28"]\n' >cuda.toml
run_capture env PIP_INDEX_URL="$INDEX" "$CUDAENV" lock --platform linux-x86_64
assert_eq 0 "$STATUS" "lock with nccl: $ERR"
assert_contains "$OUT" "nccl 2.28.9" "lock says what it locked"
LOCK=$(cat cuda.lock)
assert_contains "$LOCK" "url = \"${MIRROR_URL}files/$WHEEL\"" "the lock names the wheel's URL"
assert_contains "$LOCK" "sha256 = \"$(sha256sum "$INDEX_ROOT/files/$WHEEL" | cut -c1-64)\"" "and its sha256"
assert_contains "$LOCK" 'distribution = "nvidia-nccl-cu12"' "and its project"
assert_contains "$LOCK" "source = \"$INDEX/nvidia-nccl-cu12/\"" "and the index page it was chosen from"
CUDAENV_ROOT="$WORK/machine-x" run_capture "$CUDAENV" install --locked
assert_eq 1 "$STATUS" "a lock naming an index nobody configured is refused (lock_sources.sh, lock_pypi.sh)"
export PIP_INDEX_URL="$INDEX"
: >"$REQUEST_LOG"
ROOT_A="$WORK/machine-a" ROOT_B="$WORK/machine-b"
CUDAENV_ROOT="$ROOT_A" run_capture "$CUDAENV" install --locked
assert_eq 0 "$STATUS" "install --locked with nccl: $ERR"
assert_eq "" "$(requests_for /simple/)" "--locked reads no index page: the lock names the wheel"
check "the locked NCCL is installed" test -L "$ROOT_A/versions/12.4.1/lib/libnccl.so"
CUDAENV_ROOT="$ROOT_B" run_capture "$CUDAENV" install --locked
assert_eq 0 "$STATUS" "install --locked on a second root: $ERR"
check "the two receipts are identical" cmp "$ROOT_A/versions/12.4.1/cudaenv-install.json" "$ROOT_B/versions/12.4.1/cudaenv-install.json"
# Reinstalling from the lock after the index changed: the lock's wheel or nothing.
wheels pages --wrong-hash nvidia-nccl-cu12
rm -f "$INDEX_ROOT/files/$WHEEL"
wheels nccl 2.28.9 12  # same name, other bytes
CUDAENV_ROOT="$ROOT_A" run_capture "$CUDAENV" install --locked --force
assert_eq 1 "$STATUS" "a wheel whose bytes no longer match the lock is refused"
assert_contains "$ERR" "$WHEEL" "naming the wheel"
check "the locked install is kept" cmp "$ROOT_A/versions/12.4.1/cudaenv-install.json" "$ROOT_B/versions/12.4.1/cudaenv-install.json"

finish
