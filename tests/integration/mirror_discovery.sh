# Releases discovered from the redist folder itself: the loopback server's NVIDIA-style listing
# and a file:// folder; the day-long cache, `update` and `list-remote --refresh`; the fallback to
# the shipped list; a label newer than the pins; 13.3's `cccl`. (nginx autoindex: mirror_nginx.sh.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

listing_gets() { grep -c '^GET / ' "$REQUEST_LOG" 2>/dev/null || true; }
cache_files() { find "$CUDAENV_ROOT/cache/releases" -type f 2>/dev/null; }

add_fake_release 12.6.0
start_mirror

# A folder holding only 12.6.0: `install 12.6` means 12.6.0 although cudaenv knows 12.6.3.
: >"$REQUEST_LOG"
install_from_mirror 12.6
assert_eq 0 "$STATUS" "install 12.6 from a folder that holds only 12.6.0: $ERR"
check "12.6 meant the folder's 12.6.0" test -x "$CUDAENV_ROOT/versions/12.6.0/bin/nvcc"
assert_eq 1 "$(listing_gets)" "the folder's listing was read once"
assert_eq 1 "$(cache_files | wc -l)" "and cached under CUDAENV_ROOT/cache"
assert_contains "$(cat "$(cache_files)")" '"label": "12.6.0"' "the cache holds what the folder lists"

# Cached for a day: a second command asks nothing.
: >"$REQUEST_LOG"
run_capture "$CUDAENV" list-remote --mirror "$MIRROR_URL" --bare
assert_eq "12.6.0" "$OUT" "list-remote shows what the folder holds: $ERR"
assert_eq "" "$(cat "$REQUEST_LOG")" "a second run within the day sends no request"
run_capture "$CUDAENV" list-remote --mirror "$MIRROR_URL" --json
assert_contains "$OUT" '"source": "cache"' "--json says where the list came from"

# A release published later (newer than every pin, with 13.3's cccl) shows after `update`.
add_fake_release 13.9.0
add_fake_release 13.3.0
run_capture "$CUDAENV" list-remote --mirror "$MIRROR_URL" --bare
assert_not_contains "$OUT" "13.9.0" "the cached list does not know it yet"
: >"$REQUEST_LOG"
run_capture "$CUDAENV" update --mirror "$MIRROR_URL"
assert_eq 0 "$STATUS" "update: $ERR"
assert_contains "$OUT" "3 CUDA releases at $MIRROR_URL (from its listing); newest 13.9.0" "update says what it found"
assert_contains "$OUT" "not in this cudaenv's list (installed on their archive checksums): 13.9.0" \
  "and what this cudaenv did not know"
assert_eq 1 "$(listing_gets)" "update reads the listing whatever the cache says"
: >"$REQUEST_LOG"
assert_eq "13.9.0 13.3.0 12.6.0" "$("$CUDAENV" list-remote --mirror "$MIRROR_URL" --bare | tr '\n' ' ' | sed 's/ $//')" \
  "list-remote then shows it"
assert_eq 0 "$(listing_gets)" "from the refreshed cache"
run_capture "$CUDAENV" list-remote --mirror "$MIRROR_URL" --refresh --bare
assert_eq 1 "$(listing_gets)" "list-remote --refresh reads the listing again"

# The TTL: a cache older than a day is read again.
python3 - "$(cache_files)" <<'PY'
import json, sys, time
cache = json.load(open(sys.argv[1]))
cache["fetched_at"] = int(time.time()) - 2 * 86400
json.dump(cache, open(sys.argv[1], "w"))
PY
: >"$REQUEST_LOG"
run_capture "$CUDAENV" list-remote --mirror "$MIRROR_URL" --bare --offline
assert_eq "13.9.0 13.3.0 12.6.0" "$(tr '\n' ' ' <<<"$OUT" | sed 's/ $//')" "--offline: the cache, whatever its age"
assert_eq "" "$(cat "$REQUEST_LOG")" "--offline sends no request (what completions run)"
run_capture "$CUDAENV" list-remote --mirror "$MIRROR_URL" --bare
assert_eq 1 "$(listing_gets)" "a cache older than a day is refreshed"

# A label newer than the pins installs on its archive checksums, without --skip-manifest-pin;
# the receipt records the manifest's sha256.
run_capture "$CUDAENV" install 13.9 --mirror "$MIRROR_URL" --platform linux-x86_64
assert_eq 0 "$STATUS" "install 13.9 (no pin known): $ERR"
assert_contains "$ERR" "no pinned sha256 for the CUDA 13.9.0 manifest" "the missing pin is said"
HOME139="$CUDAENV_ROOT/versions/13.9.0"
check "13.9.0's nvcc" test -x "$HOME139/bin/nvcc"
check "13.x crt" test -f "$HOME139/include/crt/host_config.h"
check "13.x libnvvm" test -f "$HOME139/nvvm/bin/cicc"
check "CCCL from the component called cccl" test -f "$HOME139/include/nv/target"
RECEIPT=$(cat "$HOME139/cudaenv-install.json")
assert_contains "$RECEIPT" "\"sha256\": \"$(sha256sum "$MIRROR_ROOT/redistrib_13.9.0.json" | cut -c1-64)\"" \
  "the receipt records the manifest's sha256"
assert_contains "$RECEIPT" '"name": "cccl"' "the receipt names the component as the manifest does"

# 13.3.0 is pinned: a manifest that differs is refused with NVIDIA's history and the way on.
run_capture "$CUDAENV" install 13.3.0 --mirror "$MIRROR_URL" --platform linux-x86_64
assert_eq 1 "$STATUS" "a pinned label whose manifest differs is refused"
assert_contains "$ERR" "507eddaab1360336bc0fe17b77552e0b7dfe1e74da888671c3a2f5fad7775db1" "naming the pin"
assert_contains "$ERR" "12.2.0" "recalling that NVIDIA regenerated 12.2.0's manifest"
assert_contains "$ERR" "NVIDIA/build-system-archive-import-examples#8" "with the source"
assert_contains "$ERR" "--skip-manifest-pin" "and how to proceed"
install_from_mirror 13.3.0
assert_eq 0 "$STATUS" "install 13.3.0 (cccl, not cuda_cccl): $ERR"
check "13.3.0 has CCCL's headers" test -f "$CUDAENV_ROOT/versions/13.3.0/include/nv/target"
install_from_mirror 13.3.0 --component cuda_cccl
assert_contains "$ERR" "already installed" "--component cuda_cccl is the cccl role, already there"

# A file:// folder is listed directly and never cached.
rm -rf "$CUDAENV_ROOT/cache/releases"
run_capture "$CUDAENV" list-remote --mirror "file://$MIRROR_ROOT" --bare
assert_eq "13.9.0 13.3.0 12.6.0" "$(echo $OUT)" "a file:// folder lists its manifests: $ERR"
assert_eq "" "$(cache_files)" "a local folder is not cached"
run_capture "$CUDAENV" install 12.6 --mirror "file://$MIRROR_ROOT" --skip-manifest-pin --platform linux-x86_64
assert_eq 0 "$STATUS" "install 12.6 from the file:// folder: $ERR"
assert_contains "$ERR" "already installed in $CUDAENV_ROOT/versions/12.6.0" "12.6 meant its 12.6.0"

# The folder cannot be read: a stale cache first, else the shipped list, said once.
CLOSED="http://127.0.0.1:1/redist/"
run_capture "$CUDAENV" list-remote --mirror "$CLOSED" --bare
assert_eq 0 "$STATUS" "list-remote of an unreachable folder still answers: $ERR"
assert_contains "$OUT" "12.9.2" "with the releases cudaenv ships"
assert_eq 1 "$(grep -c "cannot read the list of releases at $CLOSED" <<<"$ERR")" "said once on stderr"
assert_contains "$ERR" "using the releases this cudaenv knows" "saying what it uses instead"
run_capture "$CUDAENV" list-remote --mirror "$CLOSED" --bare --offline
assert_eq 0 "$STATUS" "--offline with nothing cached: $ERR"
assert_contains "$OUT" "12.9.2" "--offline with nothing cached: the shipped list"
assert_eq "" "$ERR" "--offline with nothing cached: no attempt, no note"
run_capture "$CUDAENV" update --mirror "$CLOSED"
assert_eq 1 "$STATUS" "update of an unreachable folder fails"
assert_contains "$ERR" "cannot read the list of releases at $CLOSED" "naming it"
# A malformed cudaenv-mirror.json is said once, naming the file and the field; the folder's
# listing is used instead.
printf '{"releases":[{"label":12}]}' >"$MIRROR_ROOT/cudaenv-mirror.json"
for folder in "$MIRROR_URL" "file://$MIRROR_ROOT/"; do
  run_capture "$CUDAENV" list-remote --mirror "$folder" --refresh --bare
  assert_eq 0 "$STATUS" "list-remote over a malformed mirror index ($folder): $ERR"
  assert_eq "13.9.0 13.3.0 12.6.0" "$(echo $OUT)" "the folder's listing is used ($folder)"
  assert_contains "$ERR" "cudaenv: warning: ${folder}cudaenv-mirror.json: releases[0].label must be a string (it is number); using the folder's listing instead" \
    "the file and the field are named ($folder)"
  assert_eq 1 "$(grep -c 'cudaenv-mirror.json' <<<"$ERR")" "once ($folder)"
done
run_capture "$CUDAENV" update --mirror "$MIRROR_URL"
assert_eq 0 "$STATUS" "update over a malformed mirror index: $ERR"
assert_contains "$ERR" "cudaenv-mirror.json: releases[0].label must be a string" "update says it too"
rm "$MIRROR_ROOT/cudaenv-mirror.json"

run_capture "$CUDAENV" list-remote --mirror "$MIRROR_URL" --refresh --bare
stop_mirror
python3 - "$(cache_files)" <<'PY'
import json, sys, time
cache = json.load(open(sys.argv[1]))
cache["fetched_at"] = int(time.time()) - 2 * 86400
json.dump(cache, open(sys.argv[1], "w"))
PY
run_capture "$CUDAENV" list-remote --mirror "$MIRROR_URL" --bare
assert_eq "13.9.0 13.3.0 12.6.0" "$(echo $OUT)" "a stale cache beats the shipped list when the folder is down"
assert_contains "$ERR" "using the list cached earlier" "and says so"
finish
