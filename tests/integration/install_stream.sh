# Archives unpack while they download, and nothing of one is committed before it matched: a slow
# archive's files are in the staging folder before its last byte arrives, never in versions/, the
# shims or a receipt; a sha256 mismatch at its end removes all it wrote and fails the install,
# naming it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

add_fake_release 12.1.1
# Two files: the first is written while the second still trickles in (2 kB per 50 ms).
mkdir -p "$WORK/parts/12.1.1/cuda_nvtx/share"
head -c 20k /dev/urandom >"$WORK/parts/12.1.1/cuda_nvtx/share/first.bin"
head -c 150k /dev/urandom >"$WORK/parts/12.1.1/cuda_nvtx/share/second.bin"
add_component 12.1.1 cuda_nvtx 1.0 "$WORK/parts/12.1.1/cuda_nvtx" --no-auto-compress
write_manifest 12.1.1
start_mirror
NVTX_PATH=$(cd "$MIRROR_ROOT" && ls cuda_nvtx/linux-x86_64/*)
echo "/$NVTX_PATH trickle" >"$FAULTS"

staged_first() { ls "$CUDAENV_ROOT"/versions/.staging-12.1.1-*/share/first.bin >/dev/null 2>&1; }
# watch_install ARGS...: the install in the background; sets SEEN_STAGED (first.bin was staged
# while it ran) and VISIBLE (versions/12.1.1 was there without the whole second.bin).
watch_install() {
  "$CUDAENV" install --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64 "$@" >"$WORK/out" 2>"$WORK/err" &
  local pid=$!
  SEEN_STAGED=no VISIBLE=no
  while kill -0 "$pid" 2>/dev/null; do
    staged_first && SEEN_STAGED=yes
    # Once there, the toolkit is whole.
    if [ -e "$CUDAENV_ROOT/versions/12.1.1" ] &&
      ! cmp -s "$WORK/parts/12.1.1/cuda_nvtx/share/second.bin" "$CUDAENV_ROOT/versions/12.1.1/share/second.bin"; then
      VISIBLE=yes
    fi
    sleep 0.02
  done
  wait "$pid"
  STATUS=$?
  ERR=$(cat "$WORK/err")
}

watch_install 12.1.1 --component cuda_nvtx
assert_eq 0 "$STATUS" "the trickled archive installs: $ERR"
assert_eq yes "$SEEN_STAGED" "its first file was unpacked while the rest still downloaded"
assert_eq no "$VISIBLE" "nothing was in versions/ before the whole install had matched"
check "both files whole" cmp -s "$WORK/parts/12.1.1/cuda_nvtx/share/second.bin" "$CUDAENV_ROOT/versions/12.1.1/share/second.bin"
rm -rf "$CUDAENV_ROOT/versions/12.1.1"
"$CUDAENV" rehash >/dev/null 2>&1

# The manifest vouches for other bytes than the mirror's (a changed file): the archive unpacks
# as it arrives, then its sha256 does not match; all of it goes, the install fails naming it.
python3 - "$MIRROR_ROOT/redistrib_12.1.1.json" <<'PY'
import json, sys
manifest = json.load(open(sys.argv[1]))
manifest["cuda_nvtx"]["linux-x86_64"]["sha256"] = "0" * 64
json.dump(manifest, open(sys.argv[1], "w"))
PY
watch_install 12.1.1 --component cuda_nvtx
assert_eq 1 "$STATUS" "a mismatch at the end fails the install"
assert_eq yes "$SEEN_STAGED" "the archive had unpacked before its mismatch"
assert_contains "$ERR" "cuda_nvtx: ${MIRROR_URL}$NVTX_PATH has sha256 $(sha256sum "$MIRROR_ROOT/$NVTX_PATH" | cut -c1-64) but the manifest says 0000" \
  "the archive and both hashes are named"
check "nothing installed" test ! -e "$CUDAENV_ROOT/versions/12.1.1"
check "no staging left" no_staging_left
check "no shims" test ! -e "$CUDAENV_ROOT/shims/nvcc"
check "no receipt anywhere" test -z "$(find "$CUDAENV_ROOT" -name cudaenv-install.json)"
check "the mismatched download deleted" test -z "$(find "$CUDAENV_ROOT/cache" -name 'cuda_nvtx*')"

finish
