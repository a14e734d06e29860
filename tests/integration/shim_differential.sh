# The shim's replay and the hook's fast path held to a fresh resolution under random changes
# (shim_differential.py): the differential test of both fast paths against the full resolver, and
# so of the hook's hand-listed watches against the shim's recorded ones, bounded for CI.
#   CUDAENV_DIFF_STEPS (default 120) and CUDAENV_DIFF_SEED (default: random, printed) widen or
#   repeat a run.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is missing"
mkdir -p "$CUDAENV_ROOT/versions"
SEED=${CUDAENV_DIFF_SEED:-$RANDOM}
CHECKS=$((CHECKS + 1))
python3 "$SRC/tests/integration/shim_differential.py" "$CUDAENV" "$WORK" "${CUDAENV_DIFF_STEPS:-120}" "$SEED" ||
  fail "the shim or the hook and a fresh resolution disagree (rerun with CUDAENV_DIFF_SEED=$SEED)"
finish
