#!/usr/bin/env bash
# The helpers in lib.sh name the test script's line that failed, not their own.
. "$(dirname "$0")/lib.sh"

mkdir -p "$WORK/suite"
cat >"$WORK/suite/failing.sh" <<SCRIPT
. "$SRC/tests/integration/lib.sh"
inner() {
  assert_contains "abc" "x" "inside a function"
}
assert_eq 1 2 "at the top"
inner
check "a command" false
finish
SCRIPT
run_capture bash "$WORK/suite/failing.sh"
assert_eq 1 "$STATUS" "a suite with failed checks exits 1"
assert_contains "$ERR" "FAIL (failing.sh:5): at the top: expected [1], got [2]" "assert_eq names the script's line"
assert_contains "$ERR" "FAIL (failing.sh:3): inside a function" "a check inside a function names its own line"
assert_contains "$ERR" "FAIL (failing.sh:7): a command" "check names the script's line"
assert_contains "$ERR" "3 of 3 checks failed" "every failure is counted"
finish
