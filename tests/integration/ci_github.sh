# The GitHub Actions job of docs/guide.md, step by step as a runner runs it (github_runner.py: GITHUB_ENV,
# GITHUB_PATH, GITHUB_OUTPUT, actions/cache), against a loopback mirror: a cold run fetches the
# torch profile and cuDNN, a run on a fresh machine restores the cache and fetches nothing.
# Also env --shell dotenv, and --shell github outside a runner.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
. "$(dirname "$0")/lib_library.sh"

add_fake_release 12.4.1
add_torch_components 12.4.1 "${CI_FAKE_KBYTES:-16}"
add_fake_cudnn 9.10.0 9.10.0.56 11 12
start_mirror
use_fake_cudnn
# What a self-hosted mirror's job would set at the job level; the runner passes it to every step.
export CUDAENV_MIRROR="$MIRROR_URL" CUDAENV_SKIP_MANIFEST_PIN=1
export PATH="$BUILD:$PATH"  # the test's cudaenv, instead of the skipped "Install cudaenv" step

WS="$WORK/workspace"
mkdir -p "$WS"
printf '[cuda]\nversion = "12.4"\nprofile = "torch"\nlibraries = ["cudnn"]\n' >"$WS/cuda.toml"
printf 'all:\n\ttest -f "$$CUDA_HOME/include/cudnn.h"\n\tnvcc --version >build.log\n' >"$WS/Makefile"
(cd "$WS" && "$CUDAENV" lock >/dev/null) || fail "the developer's cudaenv lock"
unset CUDAENV_ROOT  # the job sets it

run_job() {  # run_job: the guide's job in $WS with the cache in $WORK/actions-cache; sets JOB/STATUS
  JOB=$(python3 "$SRC/tests/integration/github_runner.py" "$SRC/docs/guide.md" "$WS" "$WORK/actions-cache" \
    "Install cudaenv" 2>&1)
  STATUS=$?
}

step_seconds() { printf '%s\n' "$JOB" | awk -v s="::step $1" 'index($0, s " ") == 1 { print $3 }'; }

mkdir -p "$WORK/actions-cache"
: >"$REQUEST_LOG"
run_job
assert_eq 0 "$STATUS" "the cold job passes: $JOB"
assert_contains "$JOB" "::cache miss cuda-12.4.1-linux-x86_64-" "the first run misses the cache"
assert_contains "$JOB" "::cache saved cuda-12.4.1-linux-x86_64-" "and saves the toolkit under the lock's key"
check "the job's build step ran the locked nvcc" grep -q "release 12.4, V12.4.131" "$WS/build.log"
HOME_WS="$WS/.cudaenv/versions/12.4.1"
check "cuDNN is in the cached toolkit" test -f "$HOME_WS/include/cudnn.h"
check "and the torch profile (cublas)" test -f "$HOME_WS/include/libcublas.h"
COLD_GETS=$(grep -c '\.tar\.' "$REQUEST_LOG")
assert_eq 14 "$COLD_GETS" "cold: the thirteen archives of the torch profile and cuDNN fetched"
COLD_BYTES=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(c["size"] for c in r["components"]))' \
  "$HOME_WS/cudaenv-install.json")
COLD_SECONDS=$(step_seconds "Install_CUDA_as_cuda.lock_says_(nothing_to_fetch_after_a_cache_hit)")
check "the install step was timed" test -n "$COLD_SECONDS"
check "and its bytes counted" test -n "$COLD_BYTES"
cp "$HOME_WS/cudaenv-install.json" "$WORK/receipt-cold.json"

# A fresh machine: nothing in CUDAENV_ROOT, the cache restored by actions/cache.
rm -rf "$WS/.cudaenv" "$WS/build.log"
: >"$REQUEST_LOG"
run_job
assert_eq 0 "$STATUS" "the warm job passes: $JOB"
assert_contains "$JOB" "::cache hit cuda-12.4.1-linux-x86_64-" "the second run hits the cache"
assert_contains "$JOB" "is already installed" "install --locked finds the restored toolkit as locked"
assert_eq 0 "$(grep -c '\.tar\.' "$REQUEST_LOG")" "after a cache hit no archive is fetched"
check "the build step ran again" grep -q "release 12.4, V12.4.131" "$WS/build.log"
check "the restored receipt is the one the cold run wrote" cmp "$WORK/receipt-cold.json" "$HOME_WS/cudaenv-install.json"
WARM_SECONDS=$(step_seconds "Install_CUDA_as_cuda.lock_says_(nothing_to_fetch_after_a_cache_hit)")
echo "figures: install --locked, torch profile + cuDNN, $COLD_GETS archives, $COLD_BYTES bytes: cold ${COLD_SECONDS} s, from the restored cache ${WARM_SECONDS} s (0 bytes)"

# What --shell github wrote, read back as a later step sees it.
ENV_FILE="$WORK/github_env" PATH_FILE="$WORK/github_path"
: >"$ENV_FILE"
: >"$PATH_FILE"
(cd "$WS" && CUDAENV_ROOT="$WS/.cudaenv" GITHUB_ENV="$ENV_FILE" GITHUB_PATH="$PATH_FILE" "$CUDAENV" env --shell github)
check "CUDA_HOME goes to GITHUB_ENV" grep -qx "CUDA_HOME=$HOME_WS" "$ENV_FILE"
check "LD_LIBRARY_PATH too" grep -q "^LD_LIBRARY_PATH=$HOME_WS/lib64" "$ENV_FILE"
check "bin/ goes to GITHUB_PATH" grep -qx "$HOME_WS/bin" "$PATH_FILE"
check "PATH itself is never set in GITHUB_ENV" sh -c "! grep -q '^PATH=' '$ENV_FILE'"

cd "$WS" || exit 1
CUDAENV_ROOT="$WS/.cudaenv" run_capture "$CUDAENV" env --shell dotenv
assert_eq 0 "$STATUS" "env --shell dotenv: $ERR"
assert_contains "$OUT" "CUDA_HOME=$HOME_WS" "dotenv has KEY=VALUE lines"
assert_contains "$OUT" "PATH=$HOME_WS/bin:" "with the whole PATH"
CUDAENV_ROOT="$WS/.cudaenv" run_capture env -u GITHUB_ENV "$CUDAENV" env --shell github
assert_eq 2 "$STATUS" "--shell github outside a runner is a usage error"
assert_contains "$ERR" "GITHUB_ENV is not set" "that says what is missing"

finish
