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

# install --locked where nobody configured that index: the lock alone does not choose it.
: >"$REQUEST_LOG"
ROOT_A="$WORK/machine-a" ROOT_B="$WORK/machine-b"
CUDAENV_ROOT="$ROOT_A" run_capture "$CUDAENV" install --locked --platform linux-x86_64
assert_eq 1 "$STATUS" "a lock naming an index nobody configured is refused"
assert_contains "$ERR" "cuda.lock fetches from ${MIRROR_URL%/} (the package index $INDEX)" "naming the host and the index"
assert_contains "$ERR" "run \`cudaenv trust\`" "one way forward: trust the repository"
assert_contains "$ERR" "\`cudaenv install --locked --index-url URL\` (or set PIP_INDEX_URL)" "the other: name the index"
assert_eq "" "$(cat "$REQUEST_LOG")" "before any request"

# With the index configured, as where the lock was made: no index page read, the wheels on the
# index's own host fetched as locked.
export PIP_INDEX_URL="$INDEX"
CUDAENV_ROOT="$ROOT_A" run_capture "$CUDAENV" install --locked --platform linux-x86_64
assert_eq 0 "$STATUS" "install --locked of a pypi lock: $ERR"
HOME_A="$ROOT_A/versions/13.2.1"
assert_contains "$("$HOME_A/bin/nvcc" --version)" "V13.2.75" "the locked wheel's nvcc"
assert_eq "libnccl.so.2" "$(readlink "$HOME_A/lib/libnccl.so")" "the locked NCCL with its link"
assert_eq "" "$(requests_for /simple/)" "no index page was read"
RECEIPT=$(cat "$HOME_A/cudaenv-install.json")
assert_contains "$RECEIPT" '"source": "pypi"' "receipt: the source"
assert_contains "$RECEIPT" "\"url\": \"${MIRROR_URL}files/cuda_toolkit-13.2.1-py2.py3-none-any.whl\"" "receipt: the metapackage"
assert_contains "$RECEIPT" '"distribution": "nvidia-cuda-nvcc"' "receipt: each wheel's project"
CUDAENV_ROOT="$ROOT_B" run_capture "$CUDAENV" install --locked --platform linux-x86_64
assert_eq 0 "$STATUS" "install --locked on a second root: $ERR"
check "the two receipts are identical" cmp "$HOME_A/cudaenv-install.json" "$ROOT_B/versions/13.2.1/cudaenv-install.json"
check "and the trees" diff -r "$HOME_A" "$ROOT_B/versions/13.2.1"
CUDAENV_ROOT="$ROOT_A" run_capture "$CUDAENV" install --locked --platform linux-x86_64
assert_contains "$ERR" "already installed" "installed as locked: nothing to do"

# Another index in place of the lock's (--index-url, as behind a proxy): each wheel is found
# there by its file name and checked against the lock; the lock's index is never asked.
unset PIP_INDEX_URL
mkdir -p "$WORK/proxy" "$WORK/tampered"
cp -a "$INDEX_ROOT/files" "$INDEX_ROOT/simple" "$WORK/proxy/"
serve_folder "$WORK/proxy" PROXY
: >"$REQUEST_LOG"
CUDAENV_ROOT="$WORK/machine-c" run_capture "$CUDAENV" install --locked --index-url "${PROXY}simple" --platform linux-x86_64
assert_eq 0 "$STATUS" "install --locked from another index: $ERR"
assert_contains "$ERR" "${PROXY}simple (--index-url) replaces the package index $INDEX that $WORK/project/cuda.lock names: each wheel is found there by its file name and checked against the lock's sha256 and size" \
  "it says that the index replaces the lock's"
assert_eq "" "$(cat "$REQUEST_LOG")" "the lock's index was never asked"
check "the wheels came from the other index" grep -q "GET /files/$NVCC_WHEEL" "$WORK/PROXY.log"
check "the same toolkit" diff -r --exclude=cudaenv-install.json "$HOME_A" "$WORK/machine-c/versions/13.2.1"
# An index that serves other bytes under the locked name says so on its page: refused before
# any wheel is fetched, naming the component.
cp -a "$INDEX_ROOT/files" "$WORK/tampered/"
python3 - "$WORK/tampered/files/$NVCC_WHEEL" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) // 2] ^= 1
open(sys.argv[1], "wb").write(data)
PY
python3 "$SRC/tests/support/cuda_wheel_index.py" "$WORK/tampered" pages
serve_folder "$WORK/tampered" TAMPERED
CUDAENV_ROOT="$WORK/machine-d" run_capture "$CUDAENV" install --locked --index-url "${TAMPERED}simple" --platform linux-x86_64
assert_eq 1 "$STATUS" "an index whose wheel differs from the lock is refused"
assert_contains "$ERR" "cuda_nvcc: ${TAMPERED}simple serves $NVCC_WHEEL with sha256" "naming the component and the wheel"
assert_contains "$ERR" "but cuda.lock locks $NVCC_SHA: refused, nothing was installed" "and the lock's sha256"
assert_eq "" "$(grep -F 'GET /files/' "$WORK/TAMPERED.log")" "before any wheel is fetched"
check "nothing installed" test ! -e "$WORK/machine-d/versions/13.2.1"
# A trusted lock names its own index, as where it was made.
: >"$REQUEST_LOG"
CUDAENV_ROOT="$WORK/machine-e" "$CUDAENV" trust >/dev/null 2>&1
CUDAENV_ROOT="$WORK/machine-e" run_capture "$CUDAENV" install --locked --platform linux-x86_64
assert_eq 0 "$STATUS" "a trusted pypi lock installs from the index it names: $ERR"
assert_eq "" "$(requests_for /simple/)" "without reading an index page"
export PIP_INDEX_URL="$INDEX"

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
