# The shim's records through the real shim and CLI (src/replay/record.h): a record gives the
# answer resolving gives, is replayed without the CLI, and is replayed no longer the moment
# anything it rested on changes; a record that is corrupt, truncated, huge, binary, a link, a
# folder, someone else's, writable by others or made for other inputs, a cache folder that
# cannot be written, and shims racing to write change nothing but the time. Same-second
# changes on a file system of 1-second timestamps are in shim_replay_coarse.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_replay.sh"

mkdir -p "$CUDAENV_ROOT/versions"
light_toolkit 12.1.1
light_toolkit 12.4.1
for i in $(seq 1 60); do mkdir -p "$CUDAENV_ROOT/versions/11.$i.0/bin"; done
"$CUDAENV" rehash 2>/dev/null
mkdir -p "$WORK/proj"
printf '[cuda]\nversion = "12"\n' >"$WORK/proj/cuda.toml"

check "no cache folder before the first run" test ! -e "$CUDAENV_ROOT/cache"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "a prefix, resolved"
settle
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "resolved again"
assert_eq 1 "$(records)" "and recorded"
check "the record is whole" record_whole "$(the_record)"
check "the record is private to its user" test "$(stat -c %a "$(the_record)")" = 644
assert_eq 0 "$(temporaries "$CUDAENV_ROOT/cache")" "no temporary file is left"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "replayed"
check "the replay runs nvcc without the CLI" replayed
(cd "$WORK/proj" && strace -f -e trace=openat,open -o "$WORK/trace" "$CUDAENV_ROOT/shims/nvcc" >/dev/null 2>&1)
assert_eq 0 "$(grep -c "\"$CUDAENV_ROOT/versions\".*O_DIRECTORY" "$WORK/trace")" "the replay lists no folder"
assert_eq 0 "$(grep -c "cuda.toml" "$WORK/trace")" "and reads no cuda.toml"
assert_eq "12.4.1 (set by $WORK/proj/cuda.toml)" "$(cd "$WORK/proj" && "$CUDAENV" current)" "the CLI agrees"

# Each change is seen at once: toolkits added, removed, linked; the record is replaced.
light_toolkit 12.9.0
assert_eq "$CUDAENV_ROOT/versions/12.9.0/bin/nvcc" "$(answer)" "a toolkit added after the record"
rm -rf "$CUDAENV_ROOT/versions/12.9.0"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "and removed"
ln -s "$CUDAENV_ROOT/versions/12.1.1" "$CUDAENV_ROOT/versions/12.8.0"
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(answer)" "a link added: its target runs"
settle && answer >/dev/null
ln -sfn "$CUDAENV_ROOT/versions/12.4.1" "$CUDAENV_ROOT/versions/12.8.0"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "the link pointed elsewhere"
rm "$CUDAENV_ROOT/versions/12.8.0"
for i in $(seq 1 20); do
  light_toolkit "12.$((20 + i)).0"
  [ "$(answer)" = "$CUDAENV_ROOT/versions/12.$((20 + i)).0/bin/nvcc" ] || fail "added in a row: 12.$((20 + i)).0 missed"
  settle
done
rm -rf "$CUDAENV_ROOT"/versions/12.2?.0 "$CUDAENV_ROOT"/versions/12.3?.0 "$CUDAENV_ROOT"/versions/12.40.0
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "all removed again"
settle && answer >/dev/null
chmod -x "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc"
run_capture answer
assert_eq 127 "$STATUS" "nvcc made non-executable after the record: not run"
assert_contains "$ERR" "nvcc is not part of CUDA 12.4.1" "the CLI says why"
chmod +x "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc"
settle && answer >/dev/null
printf '[cuda]\nversion = "12.1"\n' >"$WORK/proj/cuda.toml"
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(answer)" "cuda.toml rewritten"
settle && answer >/dev/null
mkdir -p "$WORK/proj/sub"
printf '[cuda]\nversion = "12.4"\n' >"$WORK/proj/sub/cuda.toml"
settle
(cd "$WORK/proj/sub" && "$CUDAENV_ROOT/shims/nvcc") >/dev/null
rm "$WORK/proj/sub/cuda.toml"
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(cd "$WORK/proj/sub" && "$CUDAENV_ROOT/shims/nvcc")" \
  "a nearer cuda.toml removed after its record"
printf '[cuda]\nversion = "12.4"\n' >"$WORK/proj/sub/cuda.toml"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(cd "$WORK/proj/sub" && "$CUDAENV_ROOT/shims/nvcc")" \
  "and made again"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(CUDAENV_VERSION=12.4 answer)" "CUDAENV_VERSION is an input"
mkdir -p "$WORK/outside"
echo 12.1 >"$CUDAENV_ROOT/version"
settle
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(cd "$WORK/outside" && "$CUDAENV_ROOT/shims/nvcc")" "the global version"
settle && (cd "$WORK/outside" && "$CUDAENV_ROOT/shims/nvcc") >/dev/null
echo 12.4 >"$CUDAENV_ROOT/version"
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(cd "$WORK/outside" && "$CUDAENV_ROOT/shims/nvcc")" "the global version changed"
rm "$CUDAENV_ROOT/version"

# A record that is not one the CLI wrote for these inputs, whole and the user's own, is not
# replayed: the answer is resolved, and a good record written in its place.
rm -rf "$RECORDS"
settle && answer >/dev/null
RECORD=$(the_record)
check "the project's record is found" test -f "$RECORD"
corrupt() {  # corrupt WHAT: the answer after the record was made bad, and the record after it
  assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(answer)" "$1: the answer"
  settle
  answer >/dev/null
  check "$1: a good record in its place" record_whole "$RECORD"
}
sed -i "s|$CUDAENV_ROOT/versions/12.1.1/bin/nvcc|$CUDAENV_ROOT/versions/12.4.1/bin/nvcc|" "$RECORD"
check "the record now names another nvcc" grep -q "12.4.1/bin/nvcc" "$RECORD"
corrupt "a record edited (its checksum no longer matches)"
head -c $(($(stat -c %s "$RECORD") - 3)) "$RECORD" >"$WORK/cut" && cat "$WORK/cut" >"$RECORD"
corrupt "a truncated record"
head -c 100000 /dev/urandom >"$RECORD"
corrupt "a huge binary record"
head -c 4000 /dev/urandom >"$RECORD"
corrupt "a small binary record"
chmod 664 "$RECORD"
check "a group-writable record is replayed no more" eval '! replayed'
corrupt "a group-writable record"
check "and its replacement is private again" test "$(stat -c %a "$RECORD")" = 644
sed "s|$CUDAENV_ROOT/versions/12.1.1/bin/nvcc|$CUDAENV_ROOT/versions/12.4.1/bin/nvcc|" "$RECORD" >"$WORK/elsewhere"
rm "$RECORD" && ln -s "$WORK/elsewhere" "$RECORD"
corrupt "a record that is a link"
check "the link is replaced by a file" test -f "$RECORD" -a ! -L "$RECORD"
check "its target is left as it was" grep -q "12.4.1/bin/nvcc" "$WORK/elsewhere"
rm "$RECORD" && mkdir "$RECORD"
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(answer)" "a record that is a folder"
check "the folder is left" test -d "$RECORD"
rmdir "$RECORD"
# Another folder's record copied under this one's name: its inputs are not these.
mkdir -p "$WORK/proj2"
printf '[cuda]\nversion = "12.4"\n' >"$WORK/proj2/cuda.toml"
settle
(cd "$WORK/proj2" && "$CUDAENV_ROOT/shims/nvcc") >/dev/null
settle
(cd "$WORK/proj2" && "$CUDAENV_ROOT/shims/nvcc") >/dev/null
OTHER=$(grep -l "proj2" "$RECORDS"/* | head -1)
check "the other folder's record" test -f "$OTHER"
cp "$OTHER" "$RECORD"
corrupt "another folder's record under this one's name"
assert_eq 0 "$(temporaries "$CUDAENV_ROOT/cache")" "no temporary file is left"

# A cache "folder" that is a file: nothing can be written, the answer is the same.
rm -rf "$CUDAENV_ROOT/cache" && echo not-a-folder >"$CUDAENV_ROOT/cache"
settle
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(answer)" "a cache that is no folder"
assert_eq not-a-folder "$(cat "$CUDAENV_ROOT/cache")" "is left alone"
rm "$CUDAENV_ROOT/cache"

# Shims racing to write the record while a toolkit is added: every answer is one of the two
# states, the last is the newest, the record ends whole and no temporary file is left.
printf '[cuda]\nversion = "12"\n' >"$WORK/proj/cuda.toml"
settle
for round in 1 2 3; do
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
  settle
done
answer >/dev/null
for record in "$RECORDS"/*; do check "$record is whole after the races" record_whole "$record"; done
assert_eq 0 "$(temporaries "$CUDAENV_ROOT/cache")" "no temporary file is left by the races"

# The shared root: its toolkits are watched like the user's.
SHARED="$WORK/shared"
mkdir -p "$SHARED/versions"
CUDAENV_ROOT="$SHARED" light_toolkit 12.6.0
export CUDAENV_SHARED_ROOT="$SHARED"
settle
assert_eq "$SHARED/versions/12.6.0/bin/nvcc" "$(answer)" "a prefix matching a shared toolkit"
settle
assert_eq "$SHARED/versions/12.6.0/bin/nvcc" "$(answer)" "recorded"
check "and replayed" replayed
CUDAENV_ROOT="$SHARED" light_toolkit 12.7.0
assert_eq "$SHARED/versions/12.7.0/bin/nvcc" "$(answer)" "a shared toolkit added after the record"
light_toolkit 12.7.0
assert_eq "$CUDAENV_ROOT/versions/12.7.0/bin/nvcc" "$(answer)" "the user's own of that name shadows it"
rm -rf "$CUDAENV_ROOT/versions/12.7.0" "$SHARED/versions/12.7.0"
assert_eq "$SHARED/versions/12.6.0/bin/nvcc" "$(answer)" "both removed"
unset CUDAENV_SHARED_ROOT

# A big cuda.toml: its record rests on its stamp; an edit in place (same size and inode) shows.
mkdir -p "$WORK/big/sub"
big_toml 12.1 >"$WORK/big/cuda.toml"
settle
big() { (cd "$WORK/big/sub" && "$CUDAENV_ROOT/shims/nvcc"); }
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(big)" "a big cuda.toml, resolved"
check "replayed" replayed "$WORK/big/sub"
rewrite_in_place "$WORK/big/cuda.toml" 12.4
assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(big)" "edited in place, same size and inode"
rewrite_in_place "$WORK/big/cuda.toml" 12.1
assert_eq "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc" "$(big)" "and back"
{ big_toml 12.1; printf '[cuda]\nversion = "12.4"\n'; } >"$WORK/big/cuda.toml"
run_capture big
assert_eq 1 "$STATUS" "a big cuda.toml with [cuda] twice: refused"
assert_contains "$ERR" "cuda.toml" "naming the file"

# Another user's root (root running that user's shim): answered, and nothing left there that
# the user could not replace.
if [ "$(id -u)" -eq 0 ]; then
  rm -rf "$CUDAENV_ROOT/cache"
  chown 65534 "$CUDAENV_ROOT"
  settle
  assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "someone else's root"
  check "no cache folder made in it" test ! -e "$CUDAENV_ROOT/cache"
  chown 0 "$CUDAENV_ROOT"
  answer >/dev/null
  chown -R 65534 "$CUDAENV_ROOT/cache"
  check "someone else's record is not replayed" eval '! replayed'
  rm -rf "$RECORDS"/*
  assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(answer)" "someone else's cache folder"
  assert_eq 0 "$(records)" "no record written in it"
  chown -R 0 "$CUDAENV_ROOT/cache"
else
  echo "not root: not checking another user's root"
fi

# A read-only cache folder (another user's root): the answers, and nothing written.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  chmod 755 "$WORK"
  chmod -R a+rX "$WORK"
  answer >/dev/null
  snapshot() { find "$CUDAENV_ROOT/cache" -printf '%p %M %s %T@\n' | sort; }
  before=$(snapshot)
  as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  # The shim hands a record it does not own to the CLI, which nobody must be able to run (a
  # checkout under /root is not).
  if as_nobody test -x "$CUDAENV_ROOT/shims/nvcc" && as_nobody test -x "$CUDAENV"; then
    assert_eq "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "$(as_nobody sh -c "cd '$WORK/proj' && '$CUDAENV_ROOT/shims/nvcc'")" \
      "another user, a read-only cache folder"
    assert_eq "$before" "$(snapshot)" "nothing written in the read-only cache folder"
  else
    echo "user nobody cannot run the shim or $CUDAENV here: not checking a read-only cache folder"
  fi
else
  echo "not root (or no setpriv): not checking a read-only cache folder"
fi

finish
