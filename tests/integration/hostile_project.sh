# Hostile project folders (a cloned repository controls cuda.toml and what lies beside it):
# nothing hangs, nothing runs out of memory, nothing is written outside the project.
. "$(dirname "$0")/lib.sh"

TK="$WORK/toolkits/cuda-12.1"
make_fake_toolkit "$TK" 12.1.1
"$CUDAENV" add "$TK" >/dev/null 2>&1 || fail "cudaenv add"
SHIM="$CUDAENV_ROOT/shims/nvcc"

# run_bounded DIR CMD...: CMD in DIR under a timeout, so a hang fails instead of blocking.
run_bounded() {
  local dir=$1
  shift
  run_capture sh -c 'cd "$1" && shift && exec timeout 20 "$@" </dev/null' sh "$dir" "$@"
}

# Every way in reads cuda.toml with a cap and only as a regular file: the CLI, the shim and
# the prompt hook all give the same clear error, quickly.
mkdir -p "$WORK/fifo" "$WORK/zero" "$WORK/pagemap" "$WORK/huge"
mkfifo "$WORK/fifo/cuda.toml"
ln -s /dev/zero "$WORK/zero/cuda.toml"
ln -s /proc/self/pagemap "$WORK/pagemap/cuda.toml"
{ printf '[cuda]\nversion = "12.1"\n'; head -c $((2 << 20)) /dev/zero | tr '\0' '#'; } >"$WORK/huge/cuda.toml"
for kind in fifo zero pagemap huge; do
  case $kind in
    fifo) why="it is a FIFO, not a regular file" ;;
    zero) why="it is a device, not a regular file" ;;
    *) why="it is larger than 1 MiB" ;;
  esac
  for way in cli shim hook; do
    case $way in
      cli) run_bounded "$WORK/$kind" "$CUDAENV" exec -- true ;;
      shim) run_bounded "$WORK/$kind" "$SHIM" --version ;;
      hook) run_bounded "$WORK/$kind" env PWD="$WORK/$kind" "$CUDAENV" hook-env --shell bash ;;
    esac
    assert_contains "$ERR" "cannot read $WORK/$kind/cuda.toml: $why" "$kind via the $way: a clear error"
    assert_not_contains "$ERR" "internal error" "$kind via the $way: no internal error"
    case $way in
      hook) assert_eq 0 "$STATUS" "$kind via the hook: the prompt goes on" ;;
      *) assert_eq 1 "$STATUS" "$kind via the $way: fails, neither hanging (124) nor crashing" ;;
    esac
  done
  run_bounded "$WORK/$kind" "$CUDAENV" use 12.1
  assert_eq 1 "$STATUS" "use over a $kind cuda.toml fails: $ERR"
  assert_contains "$ERR" "$WORK/$kind/cuda.toml"  "use over a $kind names the file"
done
check "the FIFO is still a FIFO (use did not replace what it could not read)" test -p "$WORK/fifo/cuda.toml"
# The other commands that read the project file: the same reader, the same error.
for command in "trust" "install" "current" "torch"; do
  run_bounded "$WORK/fifo" "$CUDAENV" $command
  assert_contains "$ERR" "cannot read $WORK/fifo/cuda.toml: it is a FIFO" "cudaenv $command over a FIFO: a clear error"
done

# A repository shipping links at the temporary names `use` could pick (the old name was
# cuda.toml.tmp.<pid>) cannot make it write anywhere else.
mkdir -p "$WORK/planted"
printf 'precious\n' >"$WORK/victim"
printf '[cuda]\nversion = "12.4"  # keep this comment\n' >"$WORK/planted/cuda.toml"
next_pid=$(sh -c 'echo $$')
for pid in $(seq "$next_pid" $((next_pid + 300))); do ln -s "$WORK/victim" "$WORK/planted/cuda.toml.tmp.$pid"; done
ln -s "$WORK/victim" "$WORK/planted/.cuda.toml.tmp"
run_bounded "$WORK/planted" "$CUDAENV" use 12.1
assert_eq 0 "$STATUS" "use beside planted links: $ERR"
assert_eq "precious" "$(cat "$WORK/victim")" "the planted links' target is untouched"
assert_eq '[cuda]
version = "12.1"  # keep this comment' "$(cat "$WORK/planted/cuda.toml")" "cuda.toml itself was edited"
assert_eq 302 "$(find "$WORK/planted" -type l | wc -l)" "the planted links are left alone"
assert_eq 0 "$(find "$WORK/planted" -name '.cuda.toml.tmp-*' | wc -l)" "no temporary left behind"

# A symlinked cuda.toml (shared in a monorepo) is written through, keeping its mode...
mkdir -p "$WORK/mono/shared" "$WORK/mono/app"
printf '[cuda]\nversion = "12.4"\n' >"$WORK/mono/shared/cuda.toml"
chmod 0640 "$WORK/mono/shared/cuda.toml"
ln -s ../shared/cuda.toml "$WORK/mono/app/cuda.toml"
run_bounded "$WORK/mono/app" "$CUDAENV" use 12.1
assert_eq 0 "$STATUS" "use through a symlinked cuda.toml: $ERR"
check "the link is still a link" test -L "$WORK/mono/app/cuda.toml"
assert_contains "$(cat "$WORK/mono/shared/cuda.toml")" 'version = "12.1"' "its target was edited"
assert_eq 640 "$(stat -c %a "$WORK/mono/shared/cuda.toml")" "the target keeps its mode"
assert_contains "$ERR" "pinned in $WORK/mono/shared/cuda.toml" "use says which file it wrote"

# ...but a link to any other file is refused, and that file is left alone.
mkdir -p "$WORK/aimed"
ln -s ../victim "$WORK/aimed/cuda.toml"
run_bounded "$WORK/aimed" "$CUDAENV" use 12.1
assert_eq 1 "$STATUS" "use through a link to a file not named cuda.toml is refused"
assert_contains "$ERR" "is a symlink to ../victim, which is not a regular file named cuda.toml" "the refusal says why"
assert_eq "precious" "$(cat "$WORK/victim")" "the link's target is untouched"

# The global version file: a FIFO there is an error, not a hang.
mkdir -p "$WORK/plain"
mkfifo "$CUDAENV_ROOT/version"
run_bounded "$WORK/plain" "$CUDAENV" current
assert_contains "$ERR" "cannot read $CUDAENV_ROOT/version: it is a FIFO" "a FIFO global file is a clear error"
rm "$CUDAENV_ROOT/version"

# A project deeper than PATH_MAX (a cloned repository can nest folders without end): said so,
# not "Numerical result out of range"; reached through a short symlink, it works.
python3 - "$WORK/deep" <<'PY'
import os, sys
os.makedirs(sys.argv[1])
os.chdir(sys.argv[1])
for _ in range(2100):  # 6300 bytes below $WORK/deep
    os.mkdir("aa")
    os.chdir("aa")
open("cuda.toml", "w").write('[cuda]\nversion = "12.1"\n')
PY
CHUNK=$(printf 'aa/%.0s' $(seq 700))
run_capture bash -c "cd '$WORK/deep' && cd $CHUNK && cd $CHUNK && cd $CHUNK && exec '$CUDAENV' current"
assert_eq 1 "$STATUS" "a working directory past PATH_MAX is an error"
assert_contains "$ERR" "the current directory's path is longer than PATH_MAX (4096 bytes)" "that says so"
assert_contains "$ERR" "reach this one through a symlink with a short path" "and what to do"
assert_not_contains "$ERR" "out of range" "not errno's words"
assert_not_contains "$ERR" "a directory that exists" "nor a hint about a missing one"
ln -s "$(printf 'aa/%.0s' $(seq 1200))" "$WORK/deep/short"
SHORT="$WORK/deep/short/$(printf 'aa/%.0s' $(seq 900))"
run_capture bash -c "cd '$SHORT' && exec '$CUDAENV' current"
assert_contains "$OUT" "12.1.1 (set by ${SHORT}cuda.toml)" "through a short symlink, the project's cuda.toml is found"
run_capture bash -c "cd '$WORK/deep' && cd $CHUNK && cd $CHUNK && cd $CHUNK && exec '$CUDAENV_ROOT/shims/nvcc' --version"
assert_contains "$ERR" "longer than PATH_MAX" "the shim says the same"
run_capture bash -c "cd '$SHORT' && exec '$CUDAENV_ROOT/shims/nvcc' --version"
assert_contains "$OUT" "release 12.1" "and runs the project's nvcc through the short symlink"

finish
