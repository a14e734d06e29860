# The lean resolver's caches through the real shim and lean front (src/lean/lean_cache.h): the
# index of versions/ and a large cuda.toml's parse give the answer listing and parsing give,
# follow a change at once, and a cache file that is stale, corrupt, truncated, huge, binary, a
# link, a folder or unreadable, a cache folder that cannot be written, and shims racing to write
# change nothing but the time. The same-second races on a file system of 1-second timestamps
# are in shim_cache_coarse.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_cache.sh"

mkdir -p "$CUDAENV_ROOT/versions"
light_toolkit 12.1.1
light_toolkit 12.4.1
for i in $(seq 1 60); do mkdir -p "$CUDAENV_ROOT/versions/11.$i.0/bin"; done
"$CUDAENV" rehash 2>/dev/null
INDEX="$CUDAENV_ROOT/cache/versions.index"
mkdir -p "$WORK/proj"
printf '[cuda]\nversion = "12"\n' >"$WORK/proj/cuda.toml"

# No index: the answer, and the index written beside it.
check "no cache folder before the first run" test ! -e "$CUDAENV_ROOT/cache"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "a prefix, listed"
check "the run leaves an index" test -f "$INDEX"
check "the index is whole" index_whole "$INDEX"
assert_eq 0 "$(temporaries "$CUDAENV_ROOT/cache")" "no temporary file is left"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "a prefix, from the index"
if command -v strace >/dev/null; then
  assert_eq 0 "$(listings "$CUDAENV_ROOT/versions")" "the index answers: versions/ is not listed"
  assert_eq 0 "$(cd "$WORK/proj" && strace -f -e trace=openat,open -o "$WORK/trace" "$CUDAENV" current >/dev/null 2>&1;
    grep -c "\"$CUDAENV_ROOT/versions\".*O_DIRECTORY" "$WORK/trace")" "nor by the lean cudaenv current"
else
  echo "strace is missing: not checking that the index spares the listing"
fi
same_as_full "with the index"

# A toolkit added, then removed, right after the index was written: the answer follows at once.
light_toolkit 12.9.0
assert_eq "$CUDAENV_ROOT/versions/12.9.0/bin/nvcc" "$(answer)" "a toolkit added after the index"
same_as_full "after an add"
rm -rf "$CUDAENV_ROOT/versions/12.9.0"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "and removed"
same_as_full "after a removal"
ln -s "$CUDAENV_ROOT/versions/12.1.1" "$CUDAENV_ROOT/versions/12.8.0"
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(answer)" "a link added: its target runs"
rm "$CUDAENV_ROOT/versions/12.8.0"
for i in $(seq 1 20); do
  light_toolkit "12.$((20 + i)).0"
  [ "$(answer)" = "$CUDAENV_ROOT/versions/12.$((20 + i)).0/bin/nvcc" ] || fail "added in a row: 12.$((20 + i)).0 missed"
done
rm -rf "$CUDAENV_ROOT"/versions/12.2?.0 "$CUDAENV_ROOT"/versions/12.3?.0 "$CUDAENV_ROOT"/versions/12.40.0
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "all removed again"

# A corrupt index naming an older toolkit where the newest was: its checksum refuses it.
answer >/dev/null
sed -i 's/^\([nu]\)12\.4\.1$/\112.1.1/' "$INDEX"
check "the index now names 12.1.1 twice" test "$(grep -c '^.12\.1\.1$' "$INDEX")" = 2
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "a corrupt index is not trusted"
check "and is written anew" test "$(grep -c '^.12\.1\.1$' "$INDEX")" = 1
check "the index is whole" index_whole "$INDEX"
head -c $(($(stat -c %s "$INDEX") - 3)) "$INDEX" >"$WORK/cut" && cat "$WORK/cut" >"$INDEX"
check "the index is cut short" eval '! index_whole "$INDEX"'
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "a truncated index"
check "written whole again" index_whole "$INDEX"
head -c 3000000 /dev/urandom >"$INDEX"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "a huge binary index"
check "replaced by a real one" index_whole "$INDEX"
head -c 4000 /dev/urandom >"$INDEX"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "a small binary index"
# A link to an index that would mislead: not followed, and replaced by a file, the target untouched.
sed 's/^\([nu]\)12\.4\.1$/\112.1.1/' "$INDEX" >"$WORK/elsewhere"
rm "$INDEX" && ln -s "$WORK/elsewhere" "$INDEX"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "an index that is a link"
check "the link is replaced by a file" test -f "$INDEX" -a ! -L "$INDEX"
check "its target is left as it was" test "$(grep -c '^.12\.1\.1$' "$WORK/elsewhere")" = 2
rm "$INDEX" && mkdir "$INDEX"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "an index that is a folder"
check "the folder is left" test -d "$INDEX"
assert_eq 0 "$(temporaries "$CUDAENV_ROOT/cache")" "no temporary file is left beside it"
rmdir "$INDEX"
# A cache "folder" that is a file: nothing can be written, the answer is the same.
rm -rf "$CUDAENV_ROOT/cache" && echo not-a-folder >"$CUDAENV_ROOT/cache"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "a cache that is no folder"
assert_eq not-a-folder "$(cat "$CUDAENV_ROOT/cache")" "is left alone"
rm "$CUDAENV_ROOT/cache"

# Shims racing to write the index, and toolkits added while they run: every answer is one of
# the two states, the last is the newest, the index ends whole and no temporary file is left.
for round in 1 2 3; do
  rm -f "$INDEX"
  for i in $(seq 1 12); do answer >"$WORK/race.$i" & done
  light_toolkit "12.$((50 + round)).0"
  wait
  for i in $(seq 1 12); do
    case "$(cat "$WORK/race.$i")" in
      "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" | "$CUDAENV_ROOT/versions/12.$((50 + round)).0/bin/nvcc") ;;
      *) fail "racing shim $i of round $round: $(cat "$WORK/race.$i")" ;;
    esac
  done
  assert_eq "$CUDAENV_ROOT/versions/12.$((50 + round)).0/bin/nvcc" "$(answer)" "after the race of round $round"
  rm -rf "$CUDAENV_ROOT/versions/12.$((50 + round)).0"
done
answer >/dev/null
check "the index is whole after the races" index_whole "$INDEX"
assert_eq 0 "$(temporaries "$CUDAENV_ROOT/cache")" "no temporary file is left by the races"

# The shared root: its own index, in its cache/, used and kept fresh the same way.
SHARED="$WORK/shared"
mkdir -p "$SHARED/versions"
CUDAENV_ROOT="$SHARED" light_toolkit 12.6.0
export CUDAENV_SHARED_ROOT="$SHARED"
settle
assert_eq "$SHARED/versions/12.6.0/bin/nvcc" "$(answer)" "a prefix matching a shared toolkit"
check "the shared root gets its own index" test -f "$SHARED/cache/versions.index"
assert_eq "$SHARED/versions/12.6.0/bin/nvcc" "$(answer)" "from its index"
CUDAENV_ROOT="$SHARED" light_toolkit 12.7.0
assert_eq "$SHARED/versions/12.7.0/bin/nvcc" "$(answer)" "a shared toolkit added after its index"
light_toolkit 12.7.0
assert_eq "$CUDAENV_ROOT/versions/12.7.0/bin/nvcc" "$(answer)" "the user's own of that name shadows it"
same_as_full "with a shared root"
rm -rf "$CUDAENV_ROOT/versions/12.7.0" "$SHARED/versions/12.7.0"
assert_eq "$SHARED/versions/12.6.0/bin/nvcc" "$(answer)" "both removed"
unset CUDAENV_SHARED_ROOT

# A cuda.toml over 64 KiB: its parse is cached, keyed on its stamp; an edit shows at once.
mkdir -p "$WORK/big/sub"
big_toml 12.1 >"$WORK/big/cuda.toml"
settle
big() { (cd "$WORK/big/sub" && "$CUDAENV_ROOT/shims/nvcc"); }
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(big)" "a big cuda.toml, parsed"
check "its parse is cached" test "$(toml_caches)" = 1
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(big)" "a big cuda.toml, from the cache"
assert_eq "12.1.1 (set by $WORK/big/cuda.toml)" "$(cd "$WORK/big/sub" && "$CUDAENV" current)" "the lean current agrees"
rewrite_in_place "$WORK/big/cuda.toml" 12.4
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(big)" "edited in place, same size and inode"
rewrite_in_place "$WORK/big/cuda.toml" 12.1
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(big)" "and back"
cache=$(find "$CUDAENV_ROOT/cache" -name 'cuda-toml.*')
sed -i 's/^12\.1$/12.4/' "$cache"
check "the cached version is changed" grep -qx 12.4 "$cache"
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(big)" "a corrupt parse cache is not trusted"
check "and is written anew" grep -qx 12.1 "$cache"
head -c 100 /dev/urandom >"$cache"
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(big)" "a binary parse cache"
rm "$cache" && ln -s "$WORK/elsewhere" "$cache"
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(big)" "a parse cache that is a link"
check "the link is replaced by a file" test -f "$cache" -a ! -L "$cache"
# A file the lean reader leaves to the full one (a key defined twice) is never cached.
rm -f "$CUDAENV_ROOT"/cache/cuda-toml.*
{ big_toml 12.1; printf '[cuda]\nversion = "12.4"\n'; } >"$WORK/big/cuda.toml"
run_capture big
assert_eq 1 "$STATUS" "a big cuda.toml with [cuda] twice: the full resolver refuses it"
assert_contains "$ERR" "cuda.toml" "naming the file"
assert_eq 0 "$(toml_caches)" "and nothing is cached of it"
# A small cuda.toml is parsed every time: no cache.
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "a small cuda.toml"
assert_eq 0 "$(toml_caches)" "leaves no parse cache"

# Another user's root (root running that user's shim): answered, and nothing left there that
# the user could not replace.
if [ "$(id -u)" -eq 0 ]; then
  rm -rf "$CUDAENV_ROOT/cache"
  chown 65534 "$CUDAENV_ROOT"
  assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "someone else's root"
  check "no cache folder made in it" test ! -e "$CUDAENV_ROOT/cache"
  chown 0 "$CUDAENV_ROOT"
  answer >/dev/null
  mkdir -p "$CUDAENV_ROOT/cache" && chown 65534 "$CUDAENV_ROOT/cache"
  rm -f "$INDEX"
  assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "someone else's cache folder"
  check "no index written in it" test ! -e "$INDEX"
  chown 0 "$CUDAENV_ROOT/cache"
else
  echo "not root: not checking another user's root"
fi

# A read-only cache folder (another user's root): the answers, and nothing written.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$WORK"
  chmod -R a+rX "$WORK"
  big_toml 12.1 >"$WORK/big/cuda.toml"
  chmod 000 "$INDEX"
  snapshot() { find "$CUDAENV_ROOT/cache" -printf '%p %M %s %T@\n' | sort; }
  before=$(snapshot)
  as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  if as_nobody test -x "$CUDAENV_ROOT/shims/nvcc"; then
    assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(as_nobody sh -c "cd '$WORK/proj' && '$CUDAENV_ROOT/shims/nvcc'")" \
      "another user, an unreadable index, a read-only cache folder"
    assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(as_nobody sh -c "cd '$WORK/big/sub' && '$CUDAENV_ROOT/shims/nvcc'")" \
      "a big cuda.toml, read-only cache folder"
    assert_eq "$before" "$(snapshot)" "nothing written in the read-only cache folder"
  else
    echo "user nobody cannot run the shim here: not checking a read-only cache folder"
  fi
  chmod 644 "$INDEX"
else
  echo "not root (or no setpriv): not checking a read-only cache folder"
fi

finish
