# cudaenv mirror sync / verify into a folder, and install / list-remote from it over file://.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
. "$(dirname "$0")/lib_mirror.sh"

add_fake_release 12.1.1
add_fake_release 12.4.0
add_fake_release 11.8.0
start_mirror
NVCC=$(archive_of cuda_nvcc 12.1.1)
CUDART=$(archive_of cuda_cudart 12.1.1)
CCCL=$(archive_of cuda_cccl 12.1.1)

sync 12.1.1
assert_eq 0 "$STATUS" "mirror sync 12.1.1: $ERR"
check "the manifest is kept byte for byte" cmp "$MIRROR_ROOT/redistrib_12.1.1.json" "$LOCAL/redistrib_12.1.1.json"
check "archives sit at their relative_path" cmp "$MIRROR_ROOT/$NVCC" "$LOCAL/$NVCC"
check "the profile's archives only" test ! -e "$LOCAL/$(archive_of libcurand 12.1.1)"
check "no partial files left" test -z "$(find "$LOCAL" -name '*.part')"
INDEX=$(cat "$LOCAL/cudaenv-mirror.json")
assert_contains "$INDEX" '"label": "12.1.1"' "the index names the release"
assert_contains "$INDEX" "\"relative_path\": \"$NVCC\"" "the index names each archive"
assert_contains "$INDEX" '"release_date": "2023-04-19"' "the index keeps the release date"
assert_contains "$ERR" "synced CUDA 12.1.1" "sync reports what it did"

run_capture "$CUDAENV" list-remote --mirror "file://$LOCAL" --bare
assert_eq "12.1.1" "$OUT" "list-remote --mirror lists exactly what the mirror holds"

# Incremental: verified archives are not fetched again; an extra component is added.
: >"$REQUEST_LOG"
sync 12.1.1
assert_eq 0 "$STATUS" "a second sync succeeds: $ERR"
assert_eq 0 "$(archive_gets)" "a second sync downloads no archive"
sync 12.1.1 --component libcurand
assert_eq 1 "$(archive_gets)" "an added component is the only download"
assert_contains "$(cat "$LOCAL/cudaenv-mirror.json")" '"component": "libcurand"' "the index gains it"

run_capture "$CUDAENV" mirror verify "$LOCAL"
assert_eq 0 "$STATUS" "verify of an intact mirror: $ERR"
assert_contains "$OUT" "1 releases, 5 files" "verify summarises what it checked"

# Damage: install and verify both catch it; a plain sync repairs it.
damage "$LOCAL/$NVCC"
run_capture "$CUDAENV" install 12.1.1 --mirror "file://$LOCAL" --skip-manifest-pin --platform linux-x86_64
assert_eq 1 "$STATUS" "install from a damaged mirror fails"
assert_contains "$ERR" "cuda_nvcc: file://$LOCAL/$NVCC has sha256" "install names the component, URL and sha256"
check "nothing installed" test ! -e "$CUDAENV_ROOT/versions/12.1.1"
rm "$LOCAL/$CUDART"
head -c 100 "$LOCAL/$CCCL" >"$LOCAL/$CCCL.part" && rm "$LOCAL/$CCCL"  # as a killed sync leaves it
run_capture "$CUDAENV" mirror verify "$LOCAL"
assert_eq 1 "$STATUS" "verify fails on a damaged mirror"
assert_contains "$ERR" "$LOCAL/$NVCC has sha256" "the damaged archive is named"
assert_contains "$ERR" "$LOCAL/$CUDART is missing" "the missing archive is named"
assert_contains "$ERR" "fix: cudaenv mirror sync 12.1.1 --to '$LOCAL'" "with the fix"
assert_contains "$ERR" "3 of 5 files" "and counted"
: >"$REQUEST_LOG"
sync 12.1.1
assert_eq 0 "$STATUS" "sync repairs: $ERR"
assert_eq 3 "$(archive_gets)" "only the damaged and the missing archives are fetched again"
assert_contains "$(requests_for "$CCCL")" "range=100" "the partial one is resumed"
check "libcurand kept by a plain re-sync" test -e "$LOCAL/$(archive_of libcurand 12.1.1)"
run_capture "$CUDAENV" mirror verify "$LOCAL"
assert_eq 0 "$STATUS" "verify passes after the repair: $ERR"

# A second release accumulates; a changed manifest is caught.
sync 11.8
assert_eq 0 "$STATUS" "sync 11.8: $ERR"
assert_eq "12.1.1 11.8.0" "$("$CUDAENV" list-remote --mirror "file://$LOCAL" --bare | tr '\n' ' ' | sed 's/ $//')" \
  "the index holds both syncs"
printf ' ' >>"$LOCAL/redistrib_11.8.0.json"
run_capture "$CUDAENV" mirror verify "$LOCAL"
assert_eq 1 "$STATUS" "a changed manifest fails verify"
assert_contains "$ERR" "redistrib_11.8.0.json has" "and is named"
sync 11.8.0
run_capture "$CUDAENV" mirror verify "$LOCAL"
assert_eq 0 "$STATUS" "re-sync restores the manifest: $ERR"

# install from the file:// mirror; 12.1 resolves to the newest 12.1.z the mirror holds.
run_capture "$CUDAENV" install 12.1.1 --mirror "file://$LOCAL" --skip-manifest-pin --platform linux-x86_64
assert_eq 0 "$STATUS" "install from file:// works: $ERR"
assert_contains "$(CUDAENV_VERSION=12.1.1 "$CUDAENV_ROOT/shims/nvcc" --version)" "release 12.1, V12.1.105" "its nvcc runs"
OLD="$WORK/old-mirror"
run_capture "$CUDAENV" mirror sync 12.4.0 --to "$OLD" --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64
assert_eq 0 "$STATUS" "sync 12.4.0 elsewhere: $ERR"
run_capture env CUDAENV_MIRROR="file://$OLD" CUDAENV_SKIP_MANIFEST_PIN=1 "$CUDAENV" install 12.4 --platform linux-x86_64
assert_eq 0 "$STATUS" "install 12.4 from a mirror holding only 12.4.0 (cudaenv knows 12.4.1): $ERR"
check "12.4 meant the mirror's newest 12.4.z" test -x "$CUDAENV_ROOT/versions/12.4.0/bin/nvcc"
assert_eq "12.4.0" "$(CUDAENV_MIRROR="file://$OLD" "$CUDAENV" list-remote --bare)" "CUDAENV_MIRROR also picks list-remote's source"

run_capture "$CUDAENV" install 11 --mirror "file://$OLD" --platform linux-x86_64
assert_eq 1 "$STATUS" "a version the mirror does not hold"
assert_contains "$ERR" "no known CUDA release matches 11 in the mirror file://$OLD/" "is named with the mirror"
assert_contains "$ERR" "list-remote --mirror file://$OLD/" "and how to see what it holds"

# Usage errors; a folder without an index is read from its listing (mirror_discovery.sh).
run_capture "$CUDAENV" list-remote --mirror "$MIRROR_URL" --bare
assert_eq 0 "$STATUS" "list-remote of a folder without an index: $ERR"
assert_eq "12.4.0 12.1.1 11.8.0" "$(echo $OUT)" "lists the manifests of its listing"
run_capture "$CUDAENV" mirror verify "$WORK"
assert_eq 1 "$STATUS" "verify of a folder without an index fails"
assert_contains "$ERR" "cudaenv mirror sync VERSION --to $WORK" "with the fix"
run_capture "$CUDAENV" mirror sync --platform linux-x86_64 12.4.0 --to "$WORK/x" --mirror "$MIRROR_URL" --skip-manifest-pin
check "--platform takes one value per use" test -f "$WORK/x/redistrib_12.4.0.json"
run_capture "$CUDAENV" mirror sync 12.1.1
assert_eq 2 "$STATUS" "sync without --to is a usage error"
run_capture "$CUDAENV" mirror
assert_eq 2 "$STATUS" "mirror without an action is a usage error"
finish
