# Where a locked install fetches from (issues 29.1, 30.4): a lock made against one folder installs
# from any copy the user names (--mirror, CUDAENV_MIRROR), each archive checked against the lock;
# a cloned repository's cuda.lock naming another server is refused until `cudaenv trust` or a
# named mirror; the lock's manifest_sha256 must be the manifest's. Loopback servers, one per "host".
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
unset CUDAENV_SKIP_MANIFEST_PIN

# The company mirror (A): CUDA 12.3.0, which cudaenv ships no manifest pin for.
add_fake_release 12.3.0
start_mirror
A="$MIRROR_URL"
NVCC_PATH=cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.3.42-archive.tar.xz
NVCC_SHA=$(sha256sum "$MIRROR_ROOT/$NVCC_PATH" | cut -c1-64)
# A copy of A one level deeper on another server, as a site's air-gapped mirror.
mkdir -p "$WORK/copy/cuda"
cp -a "$MIRROR_ROOT" "$WORK/copy/cuda/redist"
serve_folder "$WORK/copy" COPY
C="${COPY}cuda/redist/"
# The attacker's server (B): the same layout, its own nvcc, its own manifest.
cp -a "$MIRROR_ROOT" "$WORK/evil"
mkdir -p "$WORK/evil-nvcc/bin"
printf '#!/bin/sh\necho evil nvcc\n' >"$WORK/evil-nvcc/bin/nvcc" && chmod +x "$WORK/evil-nvcc/bin/nvcc"
MIRROR_ROOT="$WORK/evil" add_component 12.3.0 cuda_nvcc 12.3.42 "$WORK/evil-nvcc"
MIRROR_ROOT="$WORK/evil" write_manifest 12.3.0
EVIL_SHA=$(sha256sum "$WORK/evil/$NVCC_PATH" | cut -c1-64)
serve_folder "$WORK/evil" B

no_literal_newline() { assert_not_contains "$ERR" '\n' "$1: one line, without a literal \\n"; }

# --- 29.1: a lock made against A installs from the copy C, byte for byte as locked ---
PROJECT="$WORK/project"
mkdir -p "$PROJECT" && cd "$PROJECT" || exit 1
printf '[cuda]\nversion = "12.3"\n' >cuda.toml
run_capture env CUDAENV_MIRROR="$A" "$CUDAENV" lock --platform linux-x86_64
assert_eq 0 "$STATUS" "lock against A: $ERR"
assert_contains "$(cat cuda.lock)" "source = \"$A\"" "the lock names A's folder"
: >"$REQUEST_LOG"
CUDAENV_ROOT="$WORK/air-gapped" run_capture "$CUDAENV" install --locked --mirror "$C" --platform linux-x86_64
assert_eq 0 "$STATUS" "install --locked --mirror C: $ERR"
NOTE="$C (--mirror) replaces the CUDA folder $A that $PROJECT/cuda.lock names: each archive is fetched from there at its path and checked against the lock's sha256 and size"
assert_contains "$ERR" "$NOTE" "it says that C replaces the lock's folder"
assert_eq 1 "$(grep -cF "replaces the CUDA folder" <<<"$ERR")" "once"
assert_eq "" "$(cat "$REQUEST_LOG")" "A, the lock's folder, was never asked"
check "the archives came from C, at their paths" grep -q "GET /cuda/redist/$NVCC_PATH" "$WORK/COPY.log"
RECEIPT=$(cat "$WORK/air-gapped/versions/12.3.0/cudaenv-install.json")
assert_contains "$RECEIPT" "$NVCC_SHA" "the receipt has the locked sha256"
assert_contains "$RECEIPT" "\"url\": \"$C$NVCC_PATH\"" "and where it really came from"
assert_contains "$("$WORK/air-gapped/versions/12.3.0/bin/nvcc" --version)" "release 12.3" "A's nvcc"
CUDAENV_ROOT="$WORK/ci" run_capture env CUDAENV_MIRROR="$C" "$CUDAENV" install --frozen --platform linux-x86_64
assert_eq 0 "$STATUS" "install --frozen with CUDAENV_MIRROR=C: $ERR"
assert_contains "$ERR" "$C (CUDAENV_MIRROR) replaces the CUDA folder $A" "the variable is named as the replacing setting"
check "the same install" diff -r "$WORK/air-gapped/versions/12.3.0" "$WORK/ci/versions/12.3.0"

# A copy whose nvcc archive has other bytes (same size, the manifest untouched): refused, naming
# the component; nothing installed.
cp -a "$WORK/copy" "$WORK/tampered"
python3 - "$WORK/tampered/cuda/redist/$NVCC_PATH" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) // 2] ^= 1
open(sys.argv[1], "wb").write(data)
PY
serve_folder "$WORK/tampered" TAMPERED
CUDAENV_ROOT="$WORK/t1" run_capture "$CUDAENV" install --locked --mirror "${TAMPERED}cuda/redist/" --platform linux-x86_64
assert_eq 1 "$STATUS" "an archive whose bytes differ from the lock is refused"
assert_contains "$ERR" "cuda_nvcc: ${TAMPERED}cuda/redist/$NVCC_PATH has sha256" "naming the component and the file"
assert_contains "$ERR" "says $NVCC_SHA" "and the sha256 the lock holds"
check "nothing installed" test ! -e "$WORK/t1/versions/12.3.0"
check "no staging left" env CUDAENV_ROOT="$WORK/t1" bash -c '! ls -a "$CUDAENV_ROOT/versions" 2>/dev/null | grep -q "^\.staging-"'

# A copy whose manifest gives another nvcc: refused before any archive is fetched.
: >"$WORK/B.log"
CUDAENV_ROOT="$WORK/t2" run_capture "$CUDAENV" install --locked --mirror "$B" --platform linux-x86_64
assert_eq 1 "$STATUS" "a folder whose manifest no longer gives the locked archives is refused"
assert_contains "$ERR" "the manifest ${B}redistrib_12.3.0.json no longer gives what $PROJECT/cuda.lock locks: cuda_nvcc (linux-x86_64): sha256 $NVCC_SHA in cuda.lock, $EVIL_SHA now" \
  "naming each difference"
no_literal_newline "the manifest's differences"
assert_eq "" "$(grep -F '.tar.' "$WORK/B.log")" "no archive fetched"

# A copy whose manifest was rewritten (the same archives): its sha256 is not the lock's.
cp -a "$WORK/copy" "$WORK/rewritten"
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); json.dump(m, open(sys.argv[1], "w"), indent=1)' \
  "$WORK/rewritten/cuda/redist/redistrib_12.3.0.json"
serve_folder "$WORK/rewritten" REWRITTEN
LOCKED_MANIFEST_SHA=$(sha256sum "$MIRROR_ROOT/redistrib_12.3.0.json" | cut -c1-64)
CUDAENV_ROOT="$WORK/t3" run_capture "$CUDAENV" install --locked --mirror "${REWRITTEN}cuda/redist/" --platform linux-x86_64
assert_eq 1 "$STATUS" "a manifest other than the one the lock was made from is refused"
assert_contains "$ERR" "but $PROJECT/cuda.lock was made from one with sha256 $LOCKED_MANIFEST_SHA" "naming both sha256s"
assert_contains "$ERR" "pass --skip-manifest-pin to accept it" "and the way for a private mirror's own manifest"
CUDAENV_ROOT="$WORK/t3" run_capture "$CUDAENV" install --locked --mirror "${REWRITTEN}cuda/redist/" --skip-manifest-pin \
  --platform linux-x86_64
assert_eq 0 "$STATUS" "--skip-manifest-pin accepts it, the archives checked against the lock: $ERR"

# --- 30.4: a cloned repository whose cuda.lock names the attacker's server ---
CLONE="$WORK/clone"
mkdir -p "$CLONE" && cd "$CLONE" || exit 1
printf '[cuda]\nversion = "12.3"\n' >cuda.toml
env CUDAENV_MIRROR="$B" "$CUDAENV" lock --platform linux-x86_64 >/dev/null 2>&1
check "the hostile lock names B" grep -q "source = \"$B\"" cuda.lock
: >"$WORK/B.log"
run_capture "$CUDAENV" install --locked --platform linux-x86_64
assert_eq 1 "$STATUS" "a lock naming a server nobody configured is refused"
assert_contains "$ERR" "$CLONE/cuda.lock fetches from ${B%/} (the CUDA folder $B), which is neither NVIDIA's nor PyPI's nor a place you configured" \
  "naming the host"
assert_contains "$ERR" "run \`cudaenv trust\`" "one way forward: trust the repository"
assert_contains "$ERR" "\`cudaenv install --locked --mirror URL\` (or set CUDAENV_MIRROR)" "the other: name the server"
no_literal_newline "the refusal"
assert_eq "" "$(cat "$WORK/B.log")" "B was never asked"
check "nothing installed" bash -c '! test -e "$CUDAENV_ROOT/versions/12.3.0"'
run_capture "$CUDAENV" install --frozen --platform linux-x86_64
assert_eq 1 "$STATUS" "--frozen refuses it too"
assert_contains "$ERR" "\`cudaenv install --frozen --mirror URL\`" "with hints for --frozen"
assert_not_contains "$ERR" "--locked" "none for --locked"
printf '[cuda]\nversion = "12.3"\nlock = true\n' >cuda.toml
run_capture "$CUDAENV" install --platform linux-x86_64
assert_eq 1 "$STATUS" "[cuda] lock = true refuses it too"
assert_contains "$ERR" "\`cudaenv install --mirror URL\`" "with hints for the command run"
printf '[cuda]\nversion = "12.3"\n' >cuda.toml

# With the user's mirror configured, A replaces B: B's nvcc is not what A gives, refused.
run_capture env CUDAENV_MIRROR="$A" "$CUDAENV" install --locked --platform linux-x86_64
assert_eq 1 "$STATUS" "with CUDAENV_MIRROR=A, B's archives are looked for on A"
assert_contains "$ERR" "$A (CUDAENV_MIRROR) replaces the CUDA folder $B" "said once"
assert_contains "$ERR" "cuda_nvcc (linux-x86_64): sha256 $EVIL_SHA in cuda.lock, $NVCC_SHA now" "and refused, naming the component"
assert_eq "" "$(cat "$WORK/B.log")" "B was never asked"
check "nothing installed" bash -c '! test -e "$CUDAENV_ROOT/versions/12.3.0"'

# A lock that names NVIDIA's folder but B's URLs is damaged, whatever the trust.
cp cuda.lock cuda.lock.hostile
sed -i "s|^source = \"$B\"|source = \"https://developer.download.nvidia.com/compute/cuda/redist/\"|" cuda.lock
run_capture "$CUDAENV" install --locked --platform linux-x86_64
assert_eq 1 "$STATUS" "a lock whose URLs are not in the folder it names is refused"
assert_contains "$ERR" "is locked at $B" "naming the URL"
assert_contains "$ERR" "which is not in the CUDA folder https://developer.download.nvidia.com/compute/cuda/redist/ the lock names for it" \
  "and the folder"
# A manifest_sha256 that is not the manifest's: refused even from a folder the user names.
sed -i "s|^source = .*|source = \"$B\"|; s|^manifest_sha256 = .*|manifest_sha256 = \"$(printf '0%.0s' $(seq 64))\"|" cuda.lock
run_capture "$CUDAENV" install --locked --mirror "$B" --platform linux-x86_64
assert_eq 1 "$STATUS" "a lock whose manifest_sha256 differs from the manifest fetched is refused"
assert_contains "$ERR" "was made from one with sha256 $(printf '0%.0s' $(seq 64))" "naming the lock's sha256"
mv cuda.lock.hostile cuda.lock

# `cudaenv trust` makes it the user's choice; editing the lock takes it back.
run_capture "$CUDAENV" trust
assert_contains "$ERR" "trusted $CLONE/cuda.toml" "trust covers cuda.toml"
assert_contains "$ERR" "trusted $CLONE/cuda.lock: \`cudaenv install --locked\` may fetch from the servers it names" "and cuda.lock"
run_capture "$CUDAENV" install --locked --platform linux-x86_64
assert_eq 0 "$STATUS" "a trusted lock installs from the server it names: $ERR"
assert_eq "evil nvcc" "$("$CUDAENV_ROOT/versions/12.3.0/bin/nvcc")" "B's nvcc, as the user allowed"
printf '# edited\n' >>cuda.lock
run_capture "$CUDAENV" install --locked --force --platform linux-x86_64
assert_eq 1 "$STATUS" "an edited lock is untrusted again"
assert_contains "$ERR" "fetches from ${B%/}" "and refused as before"
"$CUDAENV" trust >/dev/null 2>&1
run_capture "$CUDAENV" untrust
assert_contains "$ERR" "untrusted $CLONE/cuda.lock" "untrust takes the lock's trust back"
run_capture "$CUDAENV" install --locked --force --platform linux-x86_64
assert_eq 1 "$STATUS" "an untrusted lock is refused again"
run_capture "$CUDAENV" trust cuda.lock
assert_contains "$ERR" "trusted $CLONE/cuda.lock" "a lock can be trusted alone"
assert_not_contains "$ERR" "cuda.toml" "without its cuda.toml"

finish
