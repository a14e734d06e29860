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
interactive bash --norc --noprofile -i <"$WORK/scenario" >"$WORK/out" 2>"$WORK/err"
check_scenario_results "$WORK/err"
assert_eq "_cudaenv_hook;true user-prompt-command" "$(result prompt_command)" \
  "the hook goes first in PROMPT_COMMAND, once, keeping the user's"

# PROMPT_COMMAND as an array (bash 5.1+): the hook goes in as its first element, once.
printf '%s\n' 'PROMPT_COMMAND=(true "echo x >/dev/null")' "eval \"\$(\"$CUDAENV\" init bash)\"" \
  "eval \"\$(\"$CUDAENV\" init bash)\"" "declare -p PROMPT_COMMAND >\"$WORK/array\"" |
  interactive bash --norc --noprofile -i >/dev/null 2>&1
assert_eq 'declare -a PROMPT_COMMAND=([0]="_cudaenv_hook" [1]="true" [2]="echo x >/dev/null")' "$(cat "$WORK/array")" \
  "an array PROMPT_COMMAND gets the hook once, first"
finish
