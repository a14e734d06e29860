# Hostile toolkit folders: a shim never runs itself, a toolkit never shadows the system's
# programs, and a path that would break PATH is refused.
. "$(dirname "$0")/lib.sh"

make_fake_toolkit "$WORK/tk/cuda-12.1" 12.1.1
"$CUDAENV" add "$WORK/tk/cuda-12.1" >/dev/null 2>&1 || fail "cudaenv add"
SHIMS="$CUDAENV_ROOT/shims"
check "the nvcc shim exists" test -x "$SHIMS/nvcc"

# A toolkit whose nvcc is itself the shim (a hard link, a symlink, a copy): an error for
# every toolkit, never a loop.
for how in hardlink symlink copy; do
  tk="$WORK/tk/loop-$how"
  mkdir -p "$tk/bin"
  case $how in
    hardlink) ln "$BUILD/cudaenv-shim" "$tk/bin/nvcc" 2>/dev/null || {
      echo "loop-hardlink not tried: $WORK and $BUILD are on different file systems"
      continue
    } ;;
    symlink) ln -s "$SHIMS/nvcc" "$tk/bin/nvcc" ;;
    copy) cp "$BUILD/cudaenv-shim" "$tk/bin/nvcc" ;;
  esac
  run_capture "$CUDAENV" add "$tk" --as "loop-$how"
  assert_eq 0 "$STATUS" "register loop-$how: $ERR"
  run_capture env CUDAENV_VERSION="loop-$how" timeout 20 "$SHIMS/nvcc" --version
  assert_eq 1 "$STATUS" "loop-$how: the shim fails at once (not 124: no loop)"
  assert_contains "$ERR" "$tk/bin/nvcc is a cudaenv shim" "loop-$how: the error names the file"
  "$CUDAENV" uninstall "loop-$how" >/dev/null 2>&1
done
# A copy of something else of the shim's size is not mistaken for it.
mkdir -p "$WORK/tk/same-size/bin"
head -c "$(stat -c %s "$BUILD/cudaenv-shim")" /dev/zero >"$WORK/tk/same-size/bin/blob"
printf '#!/bin/sh\necho same-size nvcc\n' >"$WORK/tk/same-size/bin/nvcc"
chmod +x "$WORK/tk/same-size/bin/"*
"$CUDAENV" add "$WORK/tk/same-size" --as same-size >/dev/null 2>&1
run_capture env CUDAENV_VERSION=same-size timeout 20 "$SHIMS/nvcc"
assert_eq "same-size nvcc" "$OUT" "a real program runs: $ERR"
run_capture env CUDAENV_VERSION=same-size timeout 20 "$SHIMS/blob"
assert_eq 126 "$STATUS" "a file of the shim's size but other bytes is run, not refused as a shim"
"$CUDAENV" uninstall same-size >/dev/null 2>&1

# A folder like /usr, whose bin/ holds nvcc beside the system's programs: only the CUDA
# programs get shims, so ls, git, bash and python3 are never shadowed.
mkdir -p "$WORK/distro/bin"
for program in nvcc cuda-gdb ls git bash python3; do
  printf '#!/bin/sh\necho "fake %s"\n' "$program" >"$WORK/distro/bin/$program"
done
cp "$WORK/tk/cuda-12.1/bin/nvcc" "$WORK/distro/bin/nvcc"
chmod +x "$WORK/distro/bin/"*
run_capture "$CUDAENV" add "$WORK/distro" --as distro
assert_eq 0 "$STATUS" "register a /usr-like folder: $ERR"
for program in ls git bash python3; do
  [ -x "/usr/bin/$program" ] || [ -x "/bin/$program" ] || continue
  check "no shim for $program" test ! -e "$SHIMS/$program"
done
check "a shim for its nvcc" test -x "$SHIMS/nvcc"
check "a shim for its cuda-gdb" test -x "$SHIMS/cuda-gdb"

# A toolkit path with ':' would split PATH: refused at add, nothing registered.
make_fake_toolkit "$WORK/odd:path" 12.4.1
run_capture "$CUDAENV" add "$WORK/odd:path" --as odd
assert_eq 1 "$STATUS" "a path with ':' is refused"
assert_contains "$ERR" "cannot register $WORK/odd:path: a toolkit path with ':'" "the refusal names the path"
check "nothing registered" test ! -e "$CUDAENV_ROOT/versions/odd"

# So is a root with ':', whose shims folder would split PATH, for the CLI and the shim alike.
run_capture env CUDAENV_ROOT="$WORK/odd:root" "$CUDAENV" versions
assert_eq 1 "$STATUS" "a CUDAENV_ROOT with ':' is refused"
assert_contains "$ERR" "CUDAENV_ROOT='$WORK/odd:root' holds ':'" "the refusal names the setting"
run_capture env CUDAENV_ROOT="$WORK/odd:root" "$SHIMS/nvcc" --version
assert_contains "$ERR" "holds ':' or a newline, which would split PATH" "the shim refuses it too"

finish
