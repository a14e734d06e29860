# cuda.lock and cuDNN: lock, lock --check / --hash, install --locked / --frozen on two roots,
# [cuda] lock = true, a cuDNN without a build for the toolkit's major, all from a loopback mirror.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
. "$(dirname "$0")/lib_library.sh"

add_fake_release 12.4.1
add_fake_release 13.0.0
add_fake_cudnn 9.10.0 9.10.0.56 11 12
add_fake_cudnn 9.13.0 9.13.0.50 12 13
start_mirror
use_fake_cudnn
export CUDAENV_MIRROR="$MIRROR_URL" CUDAENV_SKIP_MANIFEST_PIN=1

PROJECT="$WORK/project"
mkdir -p "$PROJECT"
cd "$PROJECT" || exit 1
printf '[cuda]\nversion = "12.4"\nprofile = "minimal"\nlibraries = ["cudnn@9.10"]\n' >cuda.toml

# --- lock ---
run_capture "$CUDAENV" lock --platform linux-x86_64
assert_eq 0 "$STATUS" "lock succeeds: $ERR"
assert_contains "$OUT" "wrote $PROJECT/cuda.lock: CUDA 12.4.1 for linux-x86_64, 3 components, cudnn 9.10.0.56" "lock says what it wrote"
LOCK=$(cat cuda.lock)
assert_contains "$LOCK" 'label = "12.4.1"' "the lock names the exact label"
assert_contains "$LOCK" "source = \"$MIRROR_URL\"" "the lock names the redist folder"
NVCC_SHA=$(sha256sum "$MIRROR_ROOT"/cuda_nvcc/linux-x86_64/*12.4.131*.tar.xz | cut -c1-64)
assert_contains "$LOCK" "sha256 = \"$NVCC_SHA\"" "the lock has each archive's sha256"
assert_contains "$LOCK" "url = \"${MIRROR_URL}cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.4.131-archive.tar.xz\"" "and its URL"
assert_contains "$LOCK" "url = \"${CUDNN_URL}cudnn/linux-x86_64/cudnn-linux-x86_64-9.10.0.56_cuda12-archive.tar.xz\"" \
  "cuDNN's cuda12 variant is locked for a CUDA 12 toolkit"
assert_contains "$LOCK" "source = \"${CUDNN_URL}redistrib_9.10.0.json\"" "the library names its manifest"
run_capture "$CUDAENV" lock
assert_contains "$OUT" "is up to date" "locking again changes nothing"
assert_eq "$LOCK" "$(cat cuda.lock)" "the same bytes"

# --- lock --check ---
run_capture "$CUDAENV" lock --check
assert_eq 0 "$STATUS" "lock --check passes on a fresh lock: $ERR"
cp cuda.toml cuda.toml.good
printf '[cuda]\nversion = "12.6"\nprofile = "minimal"\nlibraries = ["cudnn@9.10"]\n' >cuda.toml
run_capture "$CUDAENV" lock --check
assert_eq 1 "$STATUS" "lock --check exits 1 when cuda.toml changed"
assert_contains "$ERR" 'version: cuda.lock has "12.4", cuda.toml has "12.6"' "and names what differs"
run_capture "$CUDAENV" install --locked
assert_eq 1 "$STATUS" "install --locked refuses a lock cuda.toml disagrees with"
assert_contains "$ERR" "does not match $PROJECT/cuda.toml: version: cuda.lock has" "install --locked says why"
assert_not_contains "$ERR" '\n' "in one line, without a literal \\n"
check "install --locked installed nothing" test ! -e "$CUDAENV_ROOT/versions/12.4.1"

# --- install --frozen: the lock as it is, never written ---
BEFORE=$(stat -c %Y-%s cuda.lock)
run_capture "$CUDAENV" install --frozen
assert_eq 0 "$STATUS" "install --frozen installs the lock whatever cuda.toml says: $ERR"
assert_eq "$LOCK" "$(cat cuda.lock)" "--frozen leaves the lock alone"
assert_eq "$BEFORE" "$(stat -c %Y-%s cuda.lock)" "not even rewritten"
mv cuda.toml.good cuda.toml

# --- install --locked on two machines ---
ROOT_A="$CUDAENV_ROOT"
HOME_A="$ROOT_A/versions/12.4.1"
check "cuDNN's headers went into the toolkit" grep -q "CUDNN_MINOR 10" "$HOME_A/include/cudnn_version.h"
check "cuDNN's libraries too, found through lib64" test -L "$HOME_A/lib64/libcudnn.so"
assert_contains "$(cat "$HOME_A/cudaenv-install.json")" 'cudnn-linux-x86_64-9.10.0.56_cuda12-archive.tar.xz' "the receipt records the library's archive"
run_capture "$CUDAENV" install --locked
assert_eq 0 "$STATUS" "install --locked over the same install: $ERR"
assert_contains "$ERR" "already installed" "it is already what the lock says"
ROOT_B="$WORK/machine-b"
CUDAENV_ROOT="$ROOT_B" run_capture "$CUDAENV" install --locked
assert_eq 0 "$STATUS" "install --locked on a second root: $ERR"
check "the two receipts are identical" cmp "$HOME_A/cudaenv-install.json" "$ROOT_B/versions/12.4.1/cudaenv-install.json"
check "and so are version.json files" cmp "$HOME_A/version.json" "$ROOT_B/versions/12.4.1/version.json"
check "and the trees, root LICENSE included" diff -r "$HOME_A" "$ROOT_B/versions/12.4.1"
check "cuDNN's own license is kept beside CUDA's" grep -qx "cuDNN license" "$HOME_A/licenses/cudnn/LICENSE"

# --- a shipped pin vouches for NVIDIA's manifest, and the lock must agree with it ---
# This mirror's 12.4.1 manifest is not NVIDIA's, so it differs from the pin cudaenv ships.
CUDAENV_ROOT="$WORK/machine-pin" run_capture env -u CUDAENV_SKIP_MANIFEST_PIN "$CUDAENV" install 12.4.1
assert_eq 1 "$STATUS" "an unlocked install refuses a manifest that differs from the shipped pin"
assert_contains "$ERR" "but cudaenv pins" "naming the pin"
LOCK_MANIFEST_SHA=$(sha256sum "$MIRROR_ROOT/redistrib_12.4.1.json" | cut -c1-64)
CUDAENV_ROOT="$WORK/machine-pin" run_capture env -u CUDAENV_SKIP_MANIFEST_PIN "$CUDAENV" install --locked
assert_eq 1 "$STATUS" "install --locked refuses a lock made from another manifest than the pinned one"
assert_contains "$ERR" "cuda.lock was made from a CUDA 12.4.1 manifest with sha256 $LOCK_MANIFEST_SHA, but cudaenv pins" \
  "naming the lock's manifest and the pin"
assert_contains "$ERR" "needs --skip-manifest-pin (or CUDAENV_SKIP_MANIFEST_PIN=1) here too" "and the way for a private mirror"
assert_contains "$ERR" "or install without --locked" "a hint that fits --locked"
check "before anything is fetched or installed" test ! -e "$WORK/machine-pin/versions/12.4.1"
CUDAENV_ROOT="$WORK/machine-pin" run_capture env -u CUDAENV_SKIP_MANIFEST_PIN "$CUDAENV" install --frozen
assert_eq 1 "$STATUS" "so does install --frozen"
assert_not_contains "$ERR" "without --locked" "with a hint that fits --frozen"
assert_contains "$ERR" "run \`cudaenv lock\` where the project is maintained" "which says where to lock again"
CUDAENV_ROOT="$WORK/machine-pin" run_capture env -u CUDAENV_SKIP_MANIFEST_PIN "$CUDAENV" install --locked --skip-manifest-pin
assert_eq 0 "$STATUS" "--skip-manifest-pin accepts a lock of a private mirror's manifest: $ERR"
check "and installs what the lock names" cmp "$HOME_A/cudaenv-install.json" "$WORK/machine-pin/versions/12.4.1/cudaenv-install.json"

# --- lock --hash ---
run_capture "$CUDAENV" lock --hash
assert_eq 0 "$STATUS" "lock --hash: $ERR"
KEY=$OUT
case "$KEY" in
  cuda-12.4.1-linux-x86_64-????????????????) CHECKS=$((CHECKS + 1)) ;;
  *) fail "lock --hash prints a cache key: [$KEY]" ;;
esac
sed -i 's/libraries = \["cudnn@9.10"\]/libraries = []/' cuda.toml
"$CUDAENV" lock >/dev/null 2>&1
run_capture "$CUDAENV" lock --hash
assert_not_contains "$OUT" "$KEY" "the key changes with the libraries"
mv cuda.lock cuda.lock.nocudnn
sed -i 's/libraries = \[\]/libraries = ["cudnn@9.10"]/' cuda.toml
"$CUDAENV" lock >/dev/null 2>&1
assert_eq "$KEY" "$("$CUDAENV" lock --hash)" "and comes back with them"

# --- upstream changed: --locked names the difference ---
mkdir -p "$WORK/parts/12.4.1/nvcc/bin" && echo changed >"$WORK/parts/12.4.1/nvcc/bin/extra"
add_component 12.4.1 cuda_nvcc 12.4.131 "$WORK/parts/12.4.1/nvcc"
write_manifest 12.4.1
CUDAENV_ROOT="$WORK/machine-c" run_capture "$CUDAENV" install --locked
assert_eq 1 "$STATUS" "install --locked refuses archives that differ from the lock"
assert_contains "$ERR" "cuda_nvcc (linux-x86_64): sha256 $NVCC_SHA in cuda.lock" "and names the component"
assert_not_contains "$ERR" '\n' "in one line, without a literal \\n"
check "nothing installed on machine c" test ! -e "$WORK/machine-c/versions/12.4.1"

# --- [cuda] lock = true: install keeps the lock ---
mkdir -p "$WORK/auto" && cd "$WORK/auto" || exit 1
printf '[cuda]\nversion = "13.0"\nlock = true\n' >cuda.toml
CUDAENV_ROOT="$WORK/machine-d" run_capture "$CUDAENV" install
assert_eq 0 "$STATUS" "install with lock = true: $ERR"
assert_contains "$ERR" "wrote $WORK/auto/cuda.lock (CUDA 13.0.0)" "install wrote the lock"
check "the lock is what install installed" grep -q 'label = "13.0.0"' cuda.lock
run_capture "$CUDAENV" lock --check
assert_eq 0 "$STATUS" "and cuda.toml agrees with it"

# --- a library with no build for the toolkit's major ---
printf '[cuda]\nversion = "13.0"\nlibraries = ["cudnn@9.10"]\n' >cuda.toml
run_capture "$CUDAENV" lock
assert_eq 1 "$STATUS" "cuDNN 9.10 for CUDA 13 is refused"
assert_contains "$ERR" "cuDNN 9.10.0 has no build for CUDA 13 on linux-x86_64" "naming the toolkit's major"
assert_contains "$ERR" "it has builds for CUDA 11, CUDA 12" "and the ones that exist"
CUDAENV_ROOT="$WORK/machine-d" run_capture "$CUDAENV" install 13.0.0 --library cudnn
assert_eq 0 "$STATUS" "install --library cudnn takes the newest cuDNN with a CUDA 13 build: $ERR"
check "the cuda13 variant was installed" grep -q "for CUDA 13" "$WORK/machine-d/versions/13.0.0/lib/libcudnn.so.9"
run_capture "$CUDAENV" install 13.0.0 --library cudnn@7
assert_eq 2 "$STATUS" "a cuDNN version nobody offers (a usage error)"
assert_contains "$ERR" "no cuDNN release matches 7" "is named"

# --- a damaged lock is an error naming the file, never a crash ---
cd "$PROJECT" || exit 1
sed -i "s/sha256 = \"$NVCC_SHA\"/sha256 = \"..\/..\/x\"/" cuda.lock
CUDAENV_ROOT="$WORK/machine-e" run_capture "$CUDAENV" install --locked
assert_eq 1 "$STATUS" "a damaged lock is refused"
assert_contains "$ERR" "$PROJECT/cuda.lock:" "naming the file and line"
assert_not_contains "$ERR" "internal error" "cleanly"

finish
