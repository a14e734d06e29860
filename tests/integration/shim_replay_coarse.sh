# The shim's records on a file system whose timestamps count whole seconds (ext4 with 128-byte
# inodes, as older file systems and some network ones do): toolkits added or removed and a big
# cuda.toml rewritten in place within the second a record was made are seen at once, though
# the stamp of versions/ or of the file is then the same as before the change. A record is
# written only where what it rests on is older than its resolution by more than a tick
# (replay_watch_settled: 2 s where times have whole seconds).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_replay.sh"

[ "$(id -u)" -eq 0 ] || skip "mounting a file system of 1-second timestamps needs root"
MKFS=$(PATH="$PATH:/usr/sbin:/sbin" command -v mkfs.ext4) || skip "mkfs.ext4 (e2fsprogs) is missing"
COARSE="$WORK/coarse"
mkdir -p "$COARSE"
truncate -s 32M "$WORK/coarse.img"
"$MKFS" -q -F -I 128 "$WORK/coarse.img" 2>/dev/null || skip "mkfs.ext4 -I 128 failed"
mount -o loop "$WORK/coarse.img" "$COARSE" 2>/dev/null || skip "cannot mount a loop device here"
trap 'umount "$COARSE"; umount "$WORK/other-fs" 2>/dev/null; rm -rf "$WORK"' EXIT
mkdir "$COARSE/probe"
[ "$(stat -c %z "$COARSE/probe" | sed 's/.*\.\([0-9]*\) .*/\1/')" = 000000000 ] || skip "the loop file system keeps sub-second times"

export CUDAENV_ROOT="$COARSE/root"
mkdir -p "$CUDAENV_ROOT/versions" "$COARSE/proj"
ln -s "$COARSE/proj" "$WORK/proj"
light_toolkit 12.1.1
for i in $(seq 1 30); do mkdir -p "$CUDAENV_ROOT/versions/11.$i.0/bin"; done
"$CUDAENV" rehash 2>/dev/null
printf '[cuda]\nversion = "12"\n' >"$COARSE/proj/cuda.toml"

# Added one after another, many in one second: each answer is the one just added.
for i in $(seq 1 40); do
  light_toolkit "12.$((10 + i)).0"
  [ "$(answer)" = "$CUDAENV_ROOT/versions/12.$((10 + i)).0/bin/nvcc" ] || fail "added in the same second: 12.$((10 + i)).0 missed"
  CHECKS=$((CHECKS + 1))
done
for i in $(seq 40 -1 2); do
  rm -rf "$CUDAENV_ROOT/versions/12.$((10 + i)).0"
  [ "$(answer)" = "$CUDAENV_ROOT/versions/12.$((9 + i)).0/bin/nvcc" ] || fail "removed in the same second: 12.$((10 + i)).0 still runs"
  CHECKS=$((CHECKS + 1))
done

# Two seconds later a record is written and replayed; a change in its first second is still seen.
sleep 2.1
assert_eq "$CUDAENV_ROOT/versions/12.11.0/bin/nvcc" "$(answer)" "two seconds later"
check "a record is written" test "$(records)" -ge 1
check "and replayed" replayed
light_toolkit 12.60.0
assert_eq "$CUDAENV_ROOT/versions/12.60.0/bin/nvcc" "$(answer)" "added right after the record was written"
rm -rf "$CUDAENV_ROOT/versions/12.60.0"
assert_eq "$CUDAENV_ROOT/versions/12.11.0/bin/nvcc" "$(answer)" "and removed again"

# A big cuda.toml rewritten in place (same inode, size and, within a second, times).
mkdir -p "$COARSE/big/sub"
light_toolkit 12.4.1
big_toml 12.1 >"$COARSE/big/cuda.toml"
for round in $(seq 1 10); do
  for version in 12.4 12.1; do
    rewrite_in_place "$COARSE/big/cuda.toml" "$version"
    got=$(cd "$COARSE/big/sub" && "$CUDAENV_ROOT/shims/nvcc")
    [ "$got" = "$CUDAENV_ROOT/versions/$version.1/bin/nvcc" ] || fail "cuda.toml rewritten to $version in round $round: $got ran"
    CHECKS=$((CHECKS + 1))
  done
done
sleep 2.1
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(cd "$COARSE/big/sub" && "$CUDAENV_ROOT/shims/nvcc")" "two seconds later"
check "replayed" replayed "$COARSE/big/sub"
rewrite_in_place "$COARSE/big/cuda.toml" 12.4
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(cd "$COARSE/big/sub" && "$CUDAENV_ROOT/shims/nvcc")" \
  "rewritten right after its record was written"

# A cuda.toml on another file system than the root: its watch is that file system's.
mkdir -p "$WORK/other/sub"
big_toml 12.4 >"$WORK/other/cuda.toml"
sleep 2.1
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(cd "$WORK/other/sub" && "$CUDAENV_ROOT/shims/nvcc")" \
  "a big cuda.toml on another file system"
rewrite_in_place "$WORK/other/cuda.toml" 12.1
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(cd "$WORK/other/sub" && "$CUDAENV_ROOT/shims/nvcc")" \
  "rewritten in place"
assert_eq 0 "$(temporaries "$CUDAENV_ROOT/cache")" "no temporary file left"

# A root on a file system outside the list the records trust (ramfs here; NFS, CIFS and FUSE in
# use, whose stat may answer from attributes cached before another host's change): resolved at
# every call, nothing recorded.
mkdir -p "$WORK/other-fs"
if mount -t ramfs ramfs "$WORK/other-fs" 2>/dev/null; then
  export CUDAENV_ROOT="$WORK/other-fs/root"
  mkdir -p "$CUDAENV_ROOT/versions"
  light_toolkit 12.2.0
  "$CUDAENV" rehash 2>/dev/null
  mkdir -p "$WORK/other-fs/big/sub"
  big_toml 12.2 >"$WORK/other-fs/big/cuda.toml"
  sleep 2.1
  assert_eq "$CUDAENV_ROOT/versions/12.2.0/bin/nvcc" "$(answer)" "a prefix on ramfs"
  assert_eq "$CUDAENV_ROOT/versions/12.2.0/bin/nvcc" "$(cd "$WORK/other-fs/big/sub" && "$CUDAENV_ROOT/shims/nvcc")" \
    "a big cuda.toml on ramfs"
  check "no record on ramfs" test "$(records)" = 0
  light_toolkit 12.3.0
  assert_eq "$CUDAENV_ROOT/versions/12.3.0/bin/nvcc" "$(answer)" "an add on ramfs"
else
  echo "cannot mount a ramfs: not checking a file system outside the list"
fi
finish
