# cuda.lock for a toolkit from a package index (source = "pypi"): the lock names the index, the
# cuda-toolkit metapackage and every wheel's URL, sha256 and project; `install --locked` installs
# exactly those on two roots (identical receipts) without reading an index page, and refuses a
# wheel whose bytes changed. Wheels are built here (tests/support/cuda_wheel_index.py).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
unset PIP_INDEX_URL PIP_CONFIG_FILE VIRTUAL_ENV XDG_CONFIG_HOME XDG_CONFIG_DIRS CUDAENV_SOURCE

INDEX_ROOT="$MIRROR_ROOT"
wheels() { python3 "$SRC/tests/support/cuda_wheel_index.py" "$INDEX_ROOT" "$@"; }
wheels release 13.2.1 13.2.75
wheels nccl 2.28.9 13
wheels pages
start_mirror
INDEX="${MIRROR_URL}simple"
NVCC_WHEEL=nvidia_cuda_nvcc-13.2.75-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
NVCC_SHA=$(sha256sum "$INDEX_ROOT/files/$NVCC_WHEEL" | cut -c1-64)

mkdir -p "$WORK/project" && cd "$WORK/project" || exit 1
printf '[cuda]\nversion = "13.2"\nsource = "pypi"\nlibraries = ["nccl"]\n' >cuda.toml

run_capture env PIP_INDEX_URL="$INDEX" "$CUDAENV" lock --platform linux-x86_64
assert_eq 0 "$STATUS" "lock a pypi toolkit: $ERR"
assert_contains "$OUT" "CUDA 13.2.1 for linux-x86_64" "the newest 13.2 on the index"
assert_contains "$OUT" "nccl 2.28.9" "and its library"
LOCK=$(cat cuda.lock)
assert_contains "$LOCK" $'libraries = ["nccl"]\nsource = "pypi"' "the request records the source"
assert_contains "$LOCK" "source = \"$INDEX\"" "the toolkit records the index"
assert_contains "$LOCK" "metapackage = \"${MIRROR_URL}files/cuda_toolkit-13.2.1-py2.py3-none-any.whl\"" "and the metapackage"
assert_contains "$LOCK" "manifest_sha256 = \"$(sha256sum "$INDEX_ROOT/files/cuda_toolkit-13.2.1-py2.py3-none-any.whl" | cut -c1-64)\"" \
  "and the metapackage's sha256"
assert_contains "$LOCK" "url = \"${MIRROR_URL}files/$NVCC_WHEEL\"" "each wheel's URL"
assert_contains "$LOCK" "sha256 = \"$NVCC_SHA\"" "and sha256"
assert_contains "$LOCK" 'distribution = "nvidia-cuda-nvcc"' "and project"
run_capture env PIP_INDEX_URL="$INDEX" "$CUDAENV" lock
assert_contains "$OUT" "is up to date" "locking again changes nothing"

run_capture "$CUDAENV" lock --check
assert_eq 0 "$STATUS" "lock --check: $ERR"
run_capture env CUDAENV_SOURCE=redist "$CUDAENV" lock --check
assert_eq 1 "$STATUS" "a lock of another source does not match"
assert_contains "$ERR" "source: cuda.lock has pypi, cuda.toml has redist" "and names the source"

# install --locked: no index setting needed (the lock has it), no index page read.
: >"$REQUEST_LOG"
ROOT_A="$WORK/machine-a" ROOT_B="$WORK/machine-b"
CUDAENV_ROOT="$ROOT_A" run_capture "$CUDAENV" install --locked --platform linux-x86_64
assert_eq 0 "$STATUS" "install --locked of a pypi lock: $ERR"
HOME_A="$ROOT_A/versions/13.2.1"
assert_contains "$("$HOME_A/bin/nvcc" --version)" "V13.2.75" "the locked wheel's nvcc"
assert_eq "libnccl.so.2" "$(readlink "$HOME_A/lib/libnccl.so")" "the locked NCCL with its link"
assert_eq "" "$(requests_for /simple/)" "no index page was read"
RECEIPT=$(cat "$HOME_A/cudaenv-install.json")
assert_contains "$RECEIPT" '"source_kind": "pypi"' "receipt: the source kind"
assert_contains "$RECEIPT" "\"url\": \"${MIRROR_URL}files/cuda_toolkit-13.2.1-py2.py3-none-any.whl\"" "receipt: the metapackage"
assert_contains "$RECEIPT" '"distribution": "nvidia-cuda-nvcc"' "receipt: each wheel's project"
CUDAENV_ROOT="$ROOT_B" run_capture "$CUDAENV" install --locked --platform linux-x86_64
assert_eq 0 "$STATUS" "install --locked on a second root: $ERR"
check "the two receipts are identical" cmp "$HOME_A/cudaenv-install.json" "$ROOT_B/versions/13.2.1/cudaenv-install.json"
check "and the trees" diff -r "$HOME_A" "$ROOT_B/versions/13.2.1"
CUDAENV_ROOT="$ROOT_A" run_capture "$CUDAENV" install --locked --platform linux-x86_64
assert_contains "$ERR" "already installed" "installed as locked: nothing to do"

# A wheel whose bytes changed under the same name (same size): refused against the lock's
# sha256, the install kept.
python3 - "$INDEX_ROOT/files/$NVCC_WHEEL" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) // 2] ^= 1
open(sys.argv[1], "wb").write(data)
PY
CUDAENV_ROOT="$ROOT_A" run_capture "$CUDAENV" install --locked --force --platform linux-x86_64
assert_eq 1 "$STATUS" "a wheel that no longer matches the lock is refused"
assert_contains "$ERR" "$NVCC_WHEEL" "naming the wheel"
assert_contains "$ERR" "$NVCC_SHA" "and the sha256 the lock expects"
check "the locked install is kept" cmp "$HOME_A/cudaenv-install.json" "$ROOT_B/versions/13.2.1/cudaenv-install.json"
check "no staging left" env CUDAENV_ROOT="$ROOT_A" bash -c '! ls -a "$CUDAENV_ROOT/versions" | grep -q "^\.staging-"'

finish
