#!/usr/bin/env bash
# UV_TORCH_BACKEND follows the pin: `exec`, `env` and the prompt hook export the cuXY `cudaenv
# torch` would choose for the toolkit and the driver (cu124 for 12.4, cu130 for 13.0), from the
# shipped table or the cached index and never the network; [torch] backend = "cpu" or "none".
# Then the real uv, given no index URL, installs the matching build from download.pytorch.org,
# here a loopback stand-in behind a TLS proxy (uv builds that URL in and offers no setting for it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_torch.sh"

for version in 12.4.1 13.0.2 13.1.0; do make_fake_toolkit "$CUDAENV_ROOT/versions/$version" "$version"; done
"$CUDAENV" rehash >/dev/null 2>&1
mkdir -p "$WORK/proj" && cd "$WORK/proj" || exit 1
backend() { "$CUDAENV" exec -- sh -c 'echo "${UV_TORCH_BACKEND-unset}"'; }

"$CUDAENV" use 12.4 >/dev/null 2>&1
assert_eq cu124 "$(backend)" "exec: 12.4 -> cu124"
assert_contains "$("$CUDAENV" env --shell bash)" "export UV_TORCH_BACKEND='cu124';" "env: 12.4 -> cu124"
assert_contains "$("$CUDAENV" hook-env --shell bash 2>/dev/null)" "export UV_TORCH_BACKEND='cu124';" "the hook: 12.4 -> cu124"
"$CUDAENV" use 13.0 >/dev/null 2>&1
assert_eq cu130 "$(backend)" "13.0 -> cu130"
# The answers are kept, keyed by all they rest on (parsing the shipped table at every prompt
# would cost more than the rest of the hook); without the memo they are the same.
check "the answer is kept in the cache" grep -q ' cu130$' "$CUDAENV_ROOT/cache/uv-torch-backend"
rm "$CUDAENV_ROOT/cache/uv-torch-backend"
assert_eq cu130 "$(backend)" "worked out again without the memo"
# What `cudaenv torch` chooses, the same way: 13.1 has no build (PyPI's torch skipped it).
"$CUDAENV" use 13.1 >/dev/null 2>&1
assert_eq cu132 "$(backend)" "13.1 -> cu132, the nearest build cudaenv torch takes"
assert_contains "$("$CUDAENV" torch --driver 580.65.06 2>/dev/null)" "--index-url https://download.pytorch.org/whl/cu132" "as cudaenv torch says"
"$CUDAENV" use 12.4 >/dev/null 2>&1
printf '\n[torch]\nversion = "2.1.2"\n' >>cuda.toml
assert_eq cu121 "$(backend)" "[torch] version 2.1.2 has no cu124: cu121, as cudaenv torch picks"
# The driver: below CUDA 12's floor no build fits, and uv is left to choose.
assert_eq unset "$(CUDAENV_DRIVER_VERSION=470.82.01 backend)" "a driver below the floor: not set"
printf 'backend = "cpu"\n' >>cuda.toml
assert_eq cpu "$(backend)" '[torch] backend = "cpu"'
sed -i 's/backend = "cpu"/backend = "none"/' cuda.toml
assert_eq unset "$(backend)" '[torch] backend = "none": not set'
assert_eq cu118 "$(UV_TORCH_BACKEND=cu118 backend)" '"none" leaves the user'"'"'s own value'
sed -i 's/backend = "none"/backend = "cu999"/' cuda.toml
run_capture "$CUDAENV" exec -- true
assert_contains "$ERR" '[torch] backend "cu999" is unknown' "a bad backend is an error at its position"
sed -i '/^\[torch\]/,$d' cuda.toml

# The cached index decides where it knows more (a torch with a cu131 build), read at a prompt
# without a request.
unset CUDAENV_TORCH_OFFLINE
add_torch_build cu131 2.16.0 0.31.0 - 13.1
start_index
export CUDAENV_TORCH_INDEX="$INDEX_URL"
"$CUDAENV" use 13.1 >/dev/null 2>&1
assert_eq cu132 "$(backend)" "no cache yet: the shipped table (and no request)"
assert_eq 0 "$(grep -c GET "$INDEX_LOG")" "a prompt never reads the index"
"$CUDAENV" torch --driver 580.65.06 >/dev/null 2>&1
check "cudaenv torch cached the index" test -s "$CUDAENV_ROOT/cache/torch-index.json"
requests=$(grep -c GET "$INDEX_LOG")
assert_eq cu131 "$(backend)" "from the cache: the index's cu131"
assert_contains "$("$CUDAENV" hook-env --shell bash 2>/dev/null)" "export UV_TORCH_BACKEND='cu131';" "the hook reads the cache too"
assert_eq "$requests" "$(grep -c GET "$INDEX_LOG")" "still no request from exec or the hook"
assert_eq cu132 "$(CUDAENV_TORCH_OFFLINE=1 backend)" "CUDAENV_TORCH_OFFLINE=1: the shipped table, as for cudaenv torch"
stop_index
unset CUDAENV_TORCH_INDEX
export CUDAENV_TORCH_OFFLINE=1

# The real uv. test.sh puts it in CUDAENV_TEST_TOOLS where the machine has none.
PATH="$PATH${CUDAENV_TEST_TOOLS:+:$CUDAENV_TEST_TOOLS}"
if ! command -v uv >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1; then
  echo "uv or openssl is not installed: \`uv pip install torch\` under the pin was not run"
  finish
fi
python3 -c 'import venv, ensurepip' 2>/dev/null || skip "python3 with venv and ensurepip is needed"
# A CA of this test's own, and download.pytorch.org's certificate signed by it.
TLS="$WORK/tls"
mkdir -p "$TLS"
{
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TLS/ca.key" -out "$TLS/ca.pem" -days 2 -subj "/CN=cudaenv test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" &&
    openssl req -newkey rsa:2048 -nodes -keyout "$TLS/host.key" -out "$TLS/host.csr" -subj "/CN=download.pytorch.org" &&
    printf 'subjectAltName=DNS:download.pytorch.org\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$TLS/ext" &&
    openssl x509 -req -in "$TLS/host.csr" -CA "$TLS/ca.pem" -CAkey "$TLS/ca.key" -CAcreateserial -out "$TLS/host.pem" -days 2 \
      -extfile "$TLS/ext"
} >"$TLS/log" 2>&1 || { cat "$TLS/log" >&2; fail "make the test CA"; finish; }
WHL="$WORK/pytorch-whl"
for variant in cu124:12.4 cu130:13.0 cpu:none; do
  python3 "$SRC/tests/support/torch_wheel_index.py" "$WHL" "${variant%%:*}" torch 2.6.0 "${variant#*:}"
done
python3 -u "$SRC/tests/support/pytorch_tls_proxy.py" "$WHL" "$TLS/host.pem" "$TLS/host.key" >"$WORK/proxy.out" 2>"$WORK/proxy.log" &
PROXY_PID=$!
trap 'kill "$PROXY_PID" 2>/dev/null; stop_index; rm -rf "$WORK"' EXIT
wait_until 10 grep -q 'port [0-9]' "$WORK/proxy.out"
PROXY="http://127.0.0.1:$(awk '{print $2}' "$WORK/proxy.out")"
VENV="$WORK/venv"
check "make a venv" make_venv "$VENV"
# uv_install: `uv pip install torch` as a user types it, under the project's environment; PyPI is
# a dead address, so a torch from anywhere but the backend's index cannot be installed.
uv_install() {
  "$CUDAENV" exec -- env HTTPS_PROXY="$PROXY" SSL_CERT_FILE="$TLS/ca.pem" UV_DEFAULT_INDEX=http://127.0.0.1:9/no-pypi \
    uv pip install --python "$VENV/bin/python" --reinstall torch >"$WORK/uv.log" 2>&1 || cat "$WORK/uv.log" >&2
}
"$CUDAENV" use 12.4 >/dev/null 2>&1
uv_install
assert_eq "2.6.0+cu124 12.4" "$(torch_build "$VENV")" "pinned 12.4: uv installs the cu124 build, no index URL given"
check "from download.pytorch.org/whl/cu124" grep -q '"GET /whl/cu124/torch/ HTTP/1.1" 200' "$WORK/proxy.log"
"$CUDAENV" use 13.0 >/dev/null 2>&1
uv_install
assert_eq "2.6.0+cu130 13.0" "$(torch_build "$VENV")" "pinned 13.0: the cu130 build"
printf '\n[torch]\nbackend = "cpu"\n' >>cuda.toml
uv_install
assert_eq "2.6.0+cpu None" "$(torch_build "$VENV")" '[torch] backend = "cpu": the CPU build'
assert_eq "" "$(grep -vE '^"(CONNECT download\.pytorch\.org:443|GET /whl/)' "$WORK/proxy.log")" "nothing but the stand-in index was asked for"
finish
