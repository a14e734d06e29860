# bash driven as an interactive shell (bash -i, commands on stdin): the hook runs from
# PROMPT_COMMAND between the lines, as it does for a person typing them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_shell.sh"
command -v bash >/dev/null || skip "bash is not installed"
setup_projects
{
  echo "PROMPT_COMMAND='true user-prompt-command'"
  posix_scenario bash
  echo "r prompt_command \"\${PROMPT_COMMAND[*]}\""
} >"$WORK/scenario"
bash --norc --noprofile -i <"$WORK/scenario" >"$WORK/out" 2>"$WORK/err"
check_scenario_results "$WORK/err"
assert_eq "_cudaenv_hook;true user-prompt-command" "$(result prompt_command)" \
  "the hook goes first in PROMPT_COMMAND, once, keeping the user's"
finish
