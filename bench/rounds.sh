# shellcheck shell=bash
# bench/rounds.sh, sourced by bench scripts: times commands interleaved, so that load moving
# on a shared machine falls on every command alike. Needs $TIMER (bench/spawn_timer.cpp).
#   rounds_add LABEL FOLDER ASSIGNMENTS WORD...  one command, run in FOLDER with ASSIGNMENTS
#                                                (space-separated NAME=value, "-" for none)
#   rounds_run ROUNDS RUNS                       ROUNDS rounds, each timing every command RUNS times
#   rounds_stat LABEL [cpu|fastest]              "median lowest highest" of its round medians (us),
#                                                of wall time, with "cpu" of CPU time (user +
#                                                system: load moves it less than wall time), with
#                                                "fastest" of each round's fastest run (the one
#                                                least disturbed by others on a loaded machine)
#   rounds_ratio LABEL BASELINE [cpu]            the ratio of their medians
#   rounds_instructions LABEL                    instructions before its first execve (callgrind),
#                                                the figure load does not move; "-" without valgrind
#   rounds_execs LABEL                           how many programs it execs (strace)
ROUND_LABELS=()
declare -A ROUND_SPECS ROUND_MEDIANS ROUND_CPU ROUND_FASTEST

rounds_add() {
  local label=$1
  shift
  ROUND_LABELS+=("$label")
  ROUND_SPECS[$label]=$(printf '%s\t' "$@")
}

# rounds_in LABEL COMMAND...: COMMAND followed by LABEL's words, in its folder and environment.
rounds_in() {
  local -a spec
  IFS=$'\t' read -ra spec <<<"${ROUND_SPECS[$1]}"
  shift
  (
    cd "${spec[0]}" || exit
    # shellcheck disable=SC2086  # the assignments are split on purpose
    [ "${spec[1]}" = - ] || export ${spec[1]}
    "$@" "${spec[@]:2}"
  )
}

rounds_run() {
  local r label median fastest cpu
  for ((r = 0; r < $1; r++)); do
    for label in "${ROUND_LABELS[@]}"; do
      read -r median fastest cpu < <(rounds_in "$label" "$TIMER" "$2")
      ROUND_MEDIANS[$label]+=" $median"
      ROUND_FASTEST[$label]+=" $fastest"
      ROUND_CPU[$label]+=" $cpu"
    done
  done
}

rounds_stat() {
  local values=${ROUND_MEDIANS[$1]}
  [ "${2:-}" = cpu ] && values=${ROUND_CPU[$1]}
  [ "${2:-}" = fastest ] && values=${ROUND_FASTEST[$1]}
  tr ' ' '\n' <<<"$values" | sed '/^$/d' | sort -g |
    awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'
}

rounds_ratio() {
  awk -v a="$(rounds_stat "$1" "${3:-}" | cut -d' ' -f1)" -v b="$(rounds_stat "$2" "${3:-}" | cut -d' ' -f1)" \
    'BEGIN { printf "%.2f", a / b }'
}

rounds_instructions() {
  command -v valgrind >/dev/null || { echo -; return; }
  local out
  out=$(mktemp -d)
  rounds_in "$1" valgrind --tool=callgrind --callgrind-out-file="$out/cg" --dump-before=execve >/dev/null 2>&1 || true
  # The dump before the first execve; a command that execs nothing has only the final one.
  local file="$out/cg.1"
  [ -f "$file" ] || file="$out/cg"
  awk '/^totals:/ { n = $2 } END { print n ? n : "-" }' "$file" 2>/dev/null || echo -
  rm -rf "$out"
}

# rounds_execs LABEL: how many programs it execs (strace), so a shim that hands off to another
# resolver shows; "-" without strace.
rounds_execs() {
  command -v strace >/dev/null || { echo -; return; }
  local out
  out=$(mktemp)
  rounds_in "$1" strace -f -qq -e trace=execve -e signal=none -o "$out" >/dev/null 2>&1 || true
  grep -c 'execve(.*= 0$' "$out" || true
  rm -f "$out"
}
