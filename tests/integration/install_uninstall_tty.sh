# uninstall on a terminal asks first, and only "y" removes the toolkit.
. "$(dirname "$0")/lib.sh"

command -v script >/dev/null || skip "script (util-linux) is missing"
make_fake_toolkit "$CUDAENV_ROOT/versions/12.4.1" 12.4.1
"$CUDAENV" rehash 2>/dev/null

on_terminal() {  # on_terminal INPUT CMD...: runs CMD on a pseudo-terminal, typing INPUT
  local input=$1
  shift
  printf '%s' "$input" | script -qec "$(printf '%q ' "$@")" /dev/null
}

out=$(on_terminal $'n\n' "$CUDAENV" uninstall 12.4.1)
STATUS=$?
assert_eq 1 "$STATUS" "answering no fails"
assert_contains "$out" "remove CUDA 12.4.1 ($CUDAENV_ROOT/versions/12.4.1)? [y/N]" "it asks, naming the folder"
assert_contains "$out" "nothing removed" "it says nothing was removed"
check "the toolkit is still there" test -x "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc"

make_fake_toolkit "$CUDAENV_ROOT/versions/12.6.0" 12.6.0
out=$(on_terminal $'y\n' "$CUDAENV" uninstall 12)
assert_eq 2 "$?" "a partial version is not a name to remove, even answering yes"
assert_contains "$out" "'12' matches 12.4.1, 12.6.0" "it lists what matches"
assert_contains "$out" "cudaenv uninstall 12.4.1" "and asks for the full name"
check "nothing was removed" test -x "$CUDAENV_ROOT/versions/12.6.0/bin/nvcc" -a -x "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc"
rm -rf "$CUDAENV_ROOT/versions/12.6.0"

out=$(on_terminal $'y\n' "$CUDAENV" uninstall 12.4.1)
assert_eq 0 "$?" "answering yes removes it"
assert_contains "$out" "removed CUDA 12.4.1" "it says what it removed"
check "the toolkit is gone" test ! -e "$CUDAENV_ROOT/versions/12.4.1"
check "its shims are gone" test ! -e "$CUDAENV_ROOT/shims/nvcc"

finish
