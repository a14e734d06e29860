# doctor's report quotes a driver's GPU names, a Python's torch version and error text, and
# paths: their control characters are shown escaped, never sent to the terminal raw.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_doctor.sh"

ESC=$(printf '\033')
use_driver 12040 550.54.14 "NVIDIA ${ESC}[31m$(printf "\a")H100:9.0"
fake_torch '\x1b[2J2.4.0' 12.4 "sm_90"
install_toolkit 12.4.1
run_capture "$CUDAENV" doctor --python "$PYTHON"
CHECKS=$((CHECKS + 1))
case "$OUT$ERR" in
  *"$ESC"* | *$'\a'*) fail "a raw control byte reached the terminal: [$OUT$ERR]" ;;
esac
assert_contains "$OUT" 'NVIDIA \x1b[31m\x07H100' "the GPU name is shown escaped"
assert_contains "$OUT" '\x1b[2J2.4.0' "the torch version is shown escaped"
doctor
assert_contains "$JSON" '\u001b[2J2.4.0' "--json carries the torch version as JSON escapes"
finish
