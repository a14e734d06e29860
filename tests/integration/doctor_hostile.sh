# cudaenv doctor against a broken driver and a hostile Python: the fake libcuda.so.1 aborts,
# crashes, hangs or writes an unterminated GPU name; the interpreter leaves processes behind,
# prints without end or answers with JSON of the wrong types. Each is reported and the rest
# of the report still prints.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_doctor.sh"

fake_gcc gcc 12.3.0
install_toolkit 12.4
"$CUDAENV" global 12.4 >/dev/null 2>&1
fake_torch 2.4.0+cu124 12.4 "sm_80 sm_86 sm_90"
use_driver 12040 550.54.14 "NVIDIA H100:9.0"

# The rest of the report: the toolkit, torch and the compiler are still judged.
rest_of_report_is_there() {
  assert_eq ok "$(severity_of toolkit-torch)" "$1: toolkit vs torch still checked"
  assert_eq ok "$(severity_of host-compiler)" "$1: host compiler still checked"
  assert_eq "2.4.0+cu124" "$(probe .probes.python.torch)" "$1: torch still probed"
}

for mode in abort segv; do
  FAKE_CUDA_MODE=$mode doctor
  assert_eq 1 "$STATUS" "$mode: a broken driver is an error"
  assert_eq error "$(severity_of driver)" "$mode: verdict"
  assert_eq true "$(probe .probes.driver.crashed)" "$mode: recorded as a crash"
  rest_of_report_is_there "$mode"
done
FAKE_CUDA_MODE=abort doctor
assert_contains "$(title_of driver)" "libcuda.so.1 crashed the driver probe in cuInit (signal 6, SIGABRT)" "abort: where and how"
FAKE_CUDA_MODE=segv doctor
assert_contains "$(title_of driver)" "in cuInit (signal 11, SIGSEGV)" "segv: where and how"
# The human report prints every section after the crash.
FAKE_CUDA_MODE=segv run_capture "$CUDAENV" doctor --python "$PYTHON"
assert_contains "$OUT" "✗ the NVIDIA driver is broken" "segv: report names it"
assert_contains "$OUT" "Host compiler" "segv: the report goes on"
assert_contains "$OUT" "torch: 2.4.0+cu124" "segv: Python section printed"

# A driver that hangs in cuInit: stopped at the timeout, reported, nothing left running.
# The probes this run started carry HANG_MARK in their environment. A zombie is not running:
# where PID 1 does not reap orphans (some CI sandboxes), a killed probe stays one, and some
# kernels still show its environment.
alive() {  # alive PID: running and not a zombie (its state, after "(comm) " in /proc/PID/stat)
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  case "${stat##*) }" in Z*) return 1 ;; esac
}
left_running() {
  local environ pid
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/} && pid=${pid%/environ}
    { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -qx "HANG_MARK=$WORK" && alive "$pid" &&
      echo "$pid: $({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)"  # what it is, should CI find one
  done
}
HANG_MARK=$WORK FAKE_CUDA_MODE=hang doctor --timeout 3
assert_eq error "$(severity_of driver)" "hang: verdict"
assert_contains "$(title_of driver)" "did not finish within 3000 ms" "hang: says it timed out"
rest_of_report_is_there hang
assert_eq "" "$(left_running)" "hang: no driver probe left running"

# A GPU name that fills the buffer without a NUL is read up to the buffer's end, not past it.
FAKE_CUDA_MODE=unterminated doctor
assert_eq "$(printf 'X%.0s' $(seq 256))" "$(probe '.probes.driver.gpus[0].name')" "unterminated name: bounded"
assert_eq ok "$(severity_of driver)" "unterminated name: the driver still works"

# A Python probe that starts a sleeper holding its output open, and one that detaches it:
# both sleepers are gone when doctor returns, and doctor does not wait for them.
gone_soon() {  # gone_soon PID: dies within 20 s (a loaded machine delivers SIGKILL late)
  local i
  for i in $(seq 200); do
    alive "$1" || return 0
    sleep 0.1
  done
  return 1
}
for how in holding detached; do
  redirect=""
  [ "$how" = detached ] && redirect=">/dev/null 2>&1"
  cat >"$FAKE_BIN/forking-python" <<PY
#!/bin/sh
sleep 300 $redirect &
echo \$! >"$WORK/sleeper.pid"
echo 'CUDAENV_PROBE {}'
PY
  chmod +x "$FAKE_BIN/forking-python"
  rm -f "$WORK/sleeper.pid"
  run_capture "$CUDAENV" doctor --json --python "$FAKE_BIN/forking-python" --timeout 120
  JSON=$OUT
  assert_eq "null" "$(probe .probes.python.torch)" "$how sleeper: the answer was read"
  check "$how sleeper: the probe ran" test -s "$WORK/sleeper.pid"
  check "$how sleeper: killed with the probe" gone_soon "$(cat "$WORK/sleeper.pid")"
done

# A probe that hangs after starting a sleeper: at the timeout the whole group goes.
cat >"$FAKE_BIN/hanging-python" <<PY
#!/bin/sh
sleep 300 >/dev/null 2>&1 &
echo \$! >"$WORK/sleeper.pid"
exec sleep 300
PY
chmod +x "$FAKE_BIN/hanging-python"
rm -f "$WORK/sleeper.pid"
run_capture "$CUDAENV" doctor --json --python "$FAKE_BIN/hanging-python" --timeout 3
JSON=$OUT
assert_contains "$(title_of python)" "no answer within 3.0 s" "hanging probe: timed out"
check "hanging probe: it ran" test -s "$WORK/sleeper.pid"
check "hanging probe: its sleeper killed with it" gone_soon "$(cat "$WORK/sleeper.pid")"

# A probe that prints without end is stopped at the cap, not read into memory.
printf '#!/bin/sh\nexec yes CUDAENV_PROBE\n' >"$FAKE_BIN/chatty-python"
chmod +x "$FAKE_BIN/chatty-python"
run_capture "$CUDAENV" doctor --json --python "$FAKE_BIN/chatty-python" --timeout 120
JSON=$OUT
assert_eq warning "$(severity_of python)" "endless output: reported"
assert_contains "$(title_of python)" "printed more than 1 MiB" "endless output: says why"

# Answers of the wrong JSON types are reported, never fatal.
wrong_answer() {  # wrong_answer JSON: a Python whose probe answer is JSON
  printf '#!/bin/sh\necho '"'"'CUDAENV_PROBE %s'"'"'\n' "$1" >"$FAKE_BIN/wrong-python"
  chmod +x "$FAKE_BIN/wrong-python"
  run_capture "$CUDAENV" doctor --json --python "$FAKE_BIN/wrong-python"
  JSON=$OUT
}
wrong_answer '{"torch": {"version": 2, "cuda": "12.4"}}'
assert_eq warning "$(severity_of python)" "version as a number: reported"
assert_contains "$(title_of python)" "its answer: torch.version must be a string (it is number)" "version as a number: names the value"
assert_eq "null" "$(probe .probes.python.torch)" "version as a number: nothing of it kept"
assert_eq ok "$(severity_of host-compiler)" "version as a number: the rest still checked"
wrong_answer '{"torch": {"version": "2.4.0", "available": "yes", "arch_list": "sm_90"}}'
assert_contains "$(title_of python)" "torch.available must be true or false (it is string)" "available as a string"
wrong_answer '{"torch": [], "deepspeed": 17}'
assert_contains "$(title_of python)" "torch must be an object (it is array)" "torch as an array"
wrong_answer '[1, 2]'
assert_contains "$(title_of python)" "the top level must be an object (it is array)" "answer not an object"
wrong_answer '{"torch": {"version": "2.4.0", "arch_list": ["sm_90", 7]}}'
assert_contains "$(title_of python)" "torch.arch_list[1] must be a string (it is number)" "arch list entry of the wrong type"

finish
