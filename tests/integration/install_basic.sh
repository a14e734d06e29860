# cudaenv install / uninstall / list-remote against a loopback mirror of fake redist archives.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

add_fake_release 12.1.1
add_fake_release 11.8.0
start_mirror

install_from_mirror 12.1
assert_eq 0 "$STATUS" "install 12.1 succeeds: $ERR"
HOME121="$CUDAENV_ROOT/versions/12.1.1"
check "nvcc is installed" test -x "$HOME121/bin/nvcc"
check "headers from cudart merged" test -f "$HOME121/include/cuda.h"
check "headers from cccl merged" test -f "$HOME121/include/nv/target"
assert_eq "lib" "$(readlink "$HOME121/lib64")" "lib64 -> lib"
check "library symlink kept" test -L "$HOME121/lib/libcudart.so"
check "top folder stripped" test ! -e "$HOME121/cuda_nvcc-linux-x86_64-12.1.105-archive"
check "each archive's root LICENSE kept under its name" grep -qx "cuda_nvcc license" "$HOME121/licenses/cuda_nvcc/LICENSE"
assert_eq "cuda_cccl license" "$(cat "$HOME121/LICENSE")" "the root LICENSE is the first component's in name order"
check "extra component not installed by default" test ! -e "$HOME121/include/curand.h"
assert_contains "$(cat "$HOME121/version.json")" '"version": "12.1.1"' "version.json names the label"
RECEIPT=$(cat "$HOME121/cudaenv-install.json")
assert_contains "$RECEIPT" '"name": "cuda_nvcc"' "receipt lists components"
assert_contains "$RECEIPT" '"version": "12.1.105"' "receipt has component versions"
assert_contains "$RECEIPT" "$(sha256sum "$MIRROR_ROOT"/cuda_nvcc/linux-x86_64/*12.1.105*.tar.xz | cut -c1-64)" "receipt has sha256"
assert_contains "$RECEIPT" "\"origin\": \"$MIRROR_URL\"" "receipt has the origin URL"
assert_contains "$RECEIPT" '"source": "redist"' "receipt has the source"
assert_not_contains "$RECEIPT" "installed_at" "receipt holds no install time (receipts from one lock are identical)"
assert_contains "$ERR" "installed CUDA 12.1.1" "install reports success"
assert_contains "$ERR" "downloading cuda_nvcc" "plain per-event log when stderr is not a TTY"
check "nvcc shim created" test -e "$CUDAENV_ROOT/shims/nvcc"
assert_contains "$(CUDAENV_VERSION=12.1.1 "$CUDAENV_ROOT/shims/nvcc" --version)" "release 12.1, V12.1.105" "shim runs the installed nvcc"
check "downloads deleted after success" test -z "$(find "$CUDAENV_ROOT/cache" -type f ! -path '*/releases/*' ! -path '*/shim/*')"
check "no staging left" no_staging_left

# The tree does not depend on which archive finishes last: the first and the last component in
# name order are slowed in turn, and two roots get the same bytes.
for slow in cuda_cccl cuda_nvcc; do
  echo "/$(cd "$MIRROR_ROOT" && ls "$slow"/linux-x86_64/*12.1*) trickle" >"$FAULTS"
  CUDAENV_ROOT="$WORK/order-$slow" install_from_mirror 12.1.1
  assert_eq 0 "$STATUS" "install with $slow downloaded last: $ERR"
done
: >"$FAULTS"
check "identical trees whatever the extraction order" diff -r "$WORK/order-cuda_cccl/versions/12.1.1" "$WORK/order-cuda_nvcc/versions/12.1.1"
check "and the same as the first install" diff -r "$HOME121" "$WORK/order-cuda_nvcc/versions/12.1.1"

install_from_mirror 12.1.1
assert_eq 0 "$STATUS" "second install exits 0"
assert_contains "$ERR" "already installed" "second install says it is installed"

run_capture "$CUDAENV" list-remote 12
assert_contains "$OUT" "* 12.1.1" "list-remote marks the installed one"
assert_contains "$OUT" "2023-04-19" "list-remote shows release dates"
assert_not_contains "$OUT" "11.8.0" "list-remote filters by prefix"
assert_eq "12.9.2" "$(echo "$OUT" | head -1 | awk '{print $1}')" "list-remote is newest first"
assert_eq "12.1.1 12.1.0" "$("$CUDAENV" list-remote 12.1 --bare | tr '\n' ' ' | sed 's/ $//')" "list-remote --bare"
run_capture "$CUDAENV" list-remote 12.1 --json
check "list-remote --json" python3 -c '
import json, sys
rows = json.loads(sys.argv[1])
assert rows[0] == {"version": "12.1.1", "release_date": "2023-04-19", "installed": True,
                   "manifest_pinned": rows[0]["manifest_pinned"], "source": rows[0]["source"]}, rows[0]
assert list(rows[0]) == ["version", "release_date", "installed", "manifest_pinned", "source"], rows[0]
' "$OUT"

# The pin: these fixture manifests are not NVIDIA's, so their hash differs from the pin.
run_capture "$CUDAENV" install 11.8 --mirror "$MIRROR_URL" --platform linux-x86_64
assert_eq 1 "$STATUS" "a manifest that differs from its pin is refused"
assert_contains "$ERR" "941a950a4ab3b95311c50df7b3c8bca973e0cdda76fc2f4b456d2d5e4dac0281" "pinned hash shown"
assert_contains "$ERR" "$(sha256sum "$MIRROR_ROOT/redistrib_11.8.0.json" | cut -c1-64)" "actual hash shown"
assert_contains "$ERR" "--skip-manifest-pin" "the fix is named"
check "refused install leaves no versions entry" test ! -e "$CUDAENV_ROOT/versions/11.8.0"

# NVIDIA's real 12.1.1 manifest matches its pin; its archives are then fetched (and here missing).
mkdir -p "$WORK/real-mirror"
cp "$SRC/tests/fixtures/redist/cuda/redistrib_12.1.1.json" "$WORK/real-mirror/"
run_capture "$CUDAENV" install 12.1.1 --force --mirror "file://$WORK/real-mirror" --platform linux-x86_64
assert_not_contains "$ERR" "pins" "the real manifest passes its pin"
# Whichever download fails first (the largest or the smallest) names its relative_path.
check "then its archives are fetched from the mirror at relative_path: $ERR" grep -qE \
  "^cudaenv: error: (cuda_[a-z]+): cannot download file://$WORK/real-mirror/\\1/linux-x86_64/\\1-linux-x86_64-12\\.1\\.[0-9]+-archive\\.tar\\.xz" <<<"$ERR"
assert_eq 1 "$STATUS" "a missing archive fails the install"
check "the failed reinstall kept the installed 12.1.1" test -x "$HOME121/bin/nvcc"

# CUDAENV_MIRROR, CUDAENV_SKIP_MANIFEST_PIN, --keep-downloads, --component.
OUT=$(CUDAENV_MIRROR="$MIRROR_URL" CUDAENV_SKIP_MANIFEST_PIN=1 "$CUDAENV" install 11.8 --platform linux-x86_64 \
  --keep-downloads --component libcurand 2>&1)
assert_eq 0 "$?" "install with CUDAENV_MIRROR and CUDAENV_SKIP_MANIFEST_PIN: $OUT"
check "--component adds a component" test -f "$CUDAENV_ROOT/versions/11.8.0/include/curand.h"
check "--keep-downloads keeps the archives" test -n "$(find "$CUDAENV_ROOT/cache" -name '*.tar.xz')"

# Asking for more than is installed reinstalls with the union; --force reinstalls as asked.
install_from_mirror 12.1.1 --component libcurand
assert_eq 0 "$STATUS" "install with an extra component: $ERR"
assert_contains "$ERR" "reinstalling with them" "the reinstall is explained"
check "extra component added to the installed version" test -f "$HOME121/include/curand.h"
check "earlier components kept" test -x "$HOME121/bin/nvcc"
install_from_mirror 12.1.1 --force
assert_eq 0 "$STATUS" "--force reinstalls: $ERR"
assert_contains "$ERR" "installed CUDA 12.1.1" "--force really installs"
check "--force installs only what it is asked" test ! -e "$HOME121/include/curand.h"
check "no old copy left" test -z "$(ls -A "$CUDAENV_ROOT/versions" | grep '^\.')"

: >"$REQUEST_LOG"
install_from_mirror 12.1.1 --profile tiny
assert_eq 2 "$STATUS" "an unknown profile is a usage error"
assert_contains "$ERR" "choose one of: minimal, torch, full" "the profiles are listed"
assert_eq 0 "$(requests_for redistrib_12.1.1 | wc -l)" "an unknown profile fetches nothing"

# A component the manifest lacks: the error lists what it has.
install_from_mirror 12.1.1 --force --component libcublas
assert_eq 1 "$STATUS" "missing component fails"
assert_contains "$ERR" "no component libcublas" "missing component named"
assert_contains "$ERR" "cuda_cudart, cuda_nvcc, libcurand" "available components listed"
assert_not_contains "$ERR" "nvidia_driver, " "driver entries are listed too but windows-only ones not duplicated"

# file:// mirror; install with no VERSION reads cuda.toml (profile and components).
rm -rf "$CUDAENV_ROOT/versions/12.1.1"
mkdir -p "$WORK/proj/sub"
printf '[cuda]\nversion = "12.1"\nprofile = "minimal"\ncomponents = ["libcurand"]\n' >"$WORK/proj/cuda.toml"
(cd "$WORK/proj/sub" && run_capture "$CUDAENV" install --mirror "file://$MIRROR_ROOT" --skip-manifest-pin \
  --platform linux-x86_64 && echo "$STATUS $ERR" >"$WORK/toml-install")
assert_contains "$(cat "$WORK/toml-install")" "0 installing what $WORK/proj/cuda.toml asks for" "install reads the nearest cuda.toml"
check "cuda.toml components honoured" test -f "$CUDAENV_ROOT/versions/12.1.1/include/curand.h"
(cd "$WORK" && run_capture "$CUDAENV" install && echo "$STATUS" >"$WORK/no-toml")
assert_eq 2 "$(cat "$WORK/no-toml")" "install without VERSION or cuda.toml is a usage error"

# uninstall: refuses without --yes when stdin is not a TTY; --yes removes; registered: unregister only.
run_capture "$CUDAENV" uninstall 11.8.0 </dev/null
assert_eq 2 "$STATUS" "uninstall without --yes on a non-TTY is refused"
check "nothing removed yet" test -d "$CUDAENV_ROOT/versions/11.8.0"
run_capture "$CUDAENV" uninstall 11.8 --yes
assert_eq 2 "$STATUS" "uninstall takes the full name, not a prefix"
assert_contains "$ERR" "'11.8' matches 11.8.0" "it lists what the prefix matches"
check "a prefix removes nothing" test -d "$CUDAENV_ROOT/versions/11.8.0"
run_capture "$CUDAENV" uninstall 11.8.0 --yes
assert_eq 0 "$STATUS" "uninstall --yes: $ERR"
check "toolkit removed" test ! -e "$CUDAENV_ROOT/versions/11.8.0"
make_fake_toolkit "$WORK/elsewhere" 12.4.1
"$CUDAENV" add "$WORK/elsewhere" --as mine 2>/dev/null
run_capture "$CUDAENV" uninstall mine </dev/null
assert_eq 0 "$STATUS" "unregistering needs no confirmation"
check "registered link removed" test ! -e "$CUDAENV_ROOT/versions/mine"
check "registered toolkit itself kept" test -x "$WORK/elsewhere/bin/nvcc"
run_capture "$CUDAENV" uninstall 12.1.1 --yes
check "last toolkit's shims removed" test ! -e "$CUDAENV_ROOT/shims/nvcc"
run_capture "$CUDAENV" uninstall 10.2 --yes
assert_eq 1 "$STATUS" "uninstalling what is not there fails"

finish
