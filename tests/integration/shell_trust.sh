# trust / untrust, and [env] in exec and env: applied only while the file is trusted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_shell.sh"
setup_projects
cd "$WORK/p2" || exit 1

run_capture "$CUDAENV" exec -- sh -c 'echo "${NCCL_DEBUG-unset}"'
assert_eq "unset" "$OUT" "exec leaves [env] out before trust"
assert_contains "$ERR" "run \`cudaenv trust\`" "exec says how to trust"
run_capture "$CUDAENV" env --shell bash
assert_not_contains "$OUT" "NCCL_DEBUG" "env leaves [env] out before trust"

run_capture "$CUDAENV" trust
assert_eq 0 "$STATUS" "cudaenv trust"
assert_contains "$ERR" "trusted $WORK/p2/cuda.toml" "trust names the file"
check "a trust record under CUDAENV_ROOT/trust" test -n "$(ls "$CUDAENV_ROOT/trust")"
run_capture "$CUDAENV" exec -- sh -c 'echo "${NCCL_DEBUG-unset}"'
assert_eq "INFO" "$OUT" "exec applies [env] once trusted"
assert_eq "" "$ERR" "no notice once trusted"
run_capture "$CUDAENV" env --shell fish
assert_contains "$OUT" "set -gx NCCL_DEBUG 'INFO';" "env prints [env] once trusted"

ln -s "$WORK/p2" "$WORK/p2-link"
run_capture sh -c "cd '$WORK/p2-link' && '$CUDAENV' exec -- sh -c 'echo \"\${NCCL_DEBUG-unset}\"'"
assert_eq "INFO" "$OUT" "the same file through a symlinked folder is trusted too"

printf '# edited\n' >>cuda.toml
run_capture "$CUDAENV" exec -- sh -c 'echo "${NCCL_DEBUG-unset}"'
assert_eq "unset" "$OUT" "an edited file is untrusted again"

"$CUDAENV" trust >/dev/null 2>&1
run_capture "$CUDAENV" untrust
assert_contains "$ERR" "untrusted" "untrust"
run_capture "$CUDAENV" exec -- sh -c 'echo "${NCCL_DEBUG-unset}"'
assert_eq "unset" "$OUT" "untrust revokes [env]"
run_capture "$CUDAENV" untrust cuda.toml
assert_contains "$ERR" "was not trusted" "untrust of an untrusted file says so"

cd "$HOME" || exit 1
run_capture "$CUDAENV" trust
assert_eq 1 "$STATUS" "trust with no cuda.toml around fails"
assert_contains "$ERR" "no cuda.toml in $HOME or above" "and says where it looked"
run_capture "$CUDAENV" trust "$WORK/nope.toml"
assert_eq 1 "$STATUS" "trust of a missing file fails"

cd "$WORK/p1" || exit 1
run_capture "$CUDAENV" exec -- sh -c 'echo "$CUDA_HOME"'
assert_eq "$TK121" "$OUT" "a file without [env] needs no trust"
assert_eq "" "$ERR" "and says nothing about trust"
finish
