# The shim's replay held to a fresh resolution under random changes (shim_differential.py): the
# differential test of the shim's fast path against the full resolver, bounded for CI.
#   CUDAENV_DIFF_STEPS (default 120) and CUDAENV_DIFF_SEED (default: random, printed) widen or
#   repeat a run.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is missing"
mkdir -p "$CUDAENV_ROOT/versions"
SEED=${CUDAENV_DIFF_SEED:-$RANDOM}
CHECKS=$((CHECKS + 1))
python3 "$SRC/tests/integration/shim_differential.py" "$CUDAENV" "$WORK" "${CUDAENV_DIFF_STEPS:-120}" "$SEED" ||
  fail "the shim and a fresh resolution disagree (rerun with CUDAENV_DIFF_SEED=$SEED)"
finish
