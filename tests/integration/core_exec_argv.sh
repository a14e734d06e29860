# `cudaenv exec` hands the program its argv exactly: after `--`, or from the first word that
# is not an exec option, nothing is added, dropped or reordered; `--cuda V` picks another toolkit.
. "$(dirname "$0")/lib.sh"

make_fake_toolkit "$WORK/tk/cuda-12.1" 12.1.1
make_fake_toolkit "$WORK/tk/cuda-12.4" 12.4.1
"$CUDAENV" add "$WORK/tk/cuda-12.1" 2>/dev/null
"$CUDAENV" add "$WORK/tk/cuda-12.4" 2>/dev/null
"$CUDAENV" global 12.1 2>/dev/null

# A program that prints each argument in brackets, and the toolkit it was given.
mkdir -p "$WORK/bin"
cat >"$WORK/bin/argv" <<'PROGRAM'
#!/bin/sh
for word in "$@"; do printf '[%s]' "$word"; done
printf ' CUDA_HOME=%s CUDAENV_VERSION=%s\n' "${CUDA_HOME:-}" "${CUDAENV_VERSION:-}"
PROGRAM
chmod +x "$WORK/bin/argv"
export PATH="$WORK/bin:$PATH"

expect_argv() {  # expect_argv EXPECTED_WORDS DESCRIPTION -- EXEC_ARGS...
  local expected=$1 what=$2
  shift 3
  run_capture "$CUDAENV" exec "$@"
  assert_eq 0 "$STATUS" "$what: exit status ($ERR)"
  assert_eq "$expected" "${OUT%% CUDA_HOME=*}" "$what"
}

expect_argv '[-o][k][k.cu]' "nothing after the program's words" -- -- argv -o k k.cu
expect_argv '[-c][print(1)]' "-c is the program's, without --" -- argv -c 'print(1)'
expect_argv '[-o][x]' "-o is the program's, without --" -- argv -o x
expect_argv '[--][-o][x][--]' "every -- after the first is the program's" -- -- argv -- -o x --
expect_argv '[][a b][ lead][tab	in]' "empty and space-holding words" -- argv '' 'a b' ' lead' 'tab	in'
expect_argv '[--cuda][12.4][-h][--help]' "exec's own options after the program are the program's" -- \
  argv --cuda 12.4 -h --help
expect_argv '[x][--]' "a trailing -- is kept" -- argv x --
expect_argv '[*][$HOME][`id`]' "no shell expansion" -- -- argv '*' '$HOME' '`id`'
expect_argv '' "a program without arguments" -- argv

# --cuda V: one command with another toolkit, also for the shims it runs.
run_capture "$CUDAENV" exec -- argv
assert_contains "$OUT" "CUDA_HOME=$WORK/tk/cuda-12.1 " "without --cuda: the global toolkit"
run_capture "$CUDAENV" exec --cuda 12.4 -- argv -o y
assert_eq "[-o][y] CUDA_HOME=$WORK/tk/cuda-12.4 CUDAENV_VERSION=12.4" "$OUT" "--cuda 12.4 -- CMD"
run_capture "$CUDAENV" exec --cuda=12.4 argv -c z
assert_eq "[-c][z] CUDA_HOME=$WORK/tk/cuda-12.4 CUDAENV_VERSION=12.4" "$OUT" "--cuda=12.4 CMD, without --"
run_capture "$CUDAENV" exec --cuda 12.4 nvcc --version
assert_contains "$OUT" "release 12.4, V12.4.131" "--cuda puts that toolkit's nvcc first"
run_capture "$CUDAENV" exec --cuda 11.8 -- argv
assert_eq 1 "$STATUS" "--cuda with a version that is not installed fails"
assert_contains "$ERR" "CUDA 11.8 is not installed (given as an argument)" "and says so"
assert_eq "" "$OUT" "and runs nothing"
run_capture "$CUDAENV" exec --cuda 12.4
assert_eq 2 "$STATUS" "--cuda without a command is a usage error"
assert_contains "$ERR" "no command given" "and says what is missing"

# The status and stdin are the program's.
run_capture "$CUDAENV" exec -- sh -c 'exit 9' -o
assert_eq 9 "$STATUS" "the program's exit status"
OUT=$(printf 'piped\n' | "$CUDAENV" exec -- sh -c 'cat; echo "[$0][$1]"' zero -o)
assert_eq "piped
[zero][-o]" "$OUT" "stdin and sh -c's own argv pass through"

finish
