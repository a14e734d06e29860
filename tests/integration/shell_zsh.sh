# zsh driven as an interactive shell (zsh -i, commands on stdin): the hook runs from
# precmd and chpwd between the lines, as it does for a person typing them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_shell.sh"
command -v zsh >/dev/null || skip "zsh is not installed"
setup_projects
{
  posix_scenario zsh
  echo "r hooks \"\${(j:,:)precmd_functions}|\${(j:,:)chpwd_functions}\""
} >"$WORK/scenario"
interactive zsh -f -i <"$WORK/scenario" >"$WORK/out" 2>"$WORK/err"
check_scenario_results "$WORK/err"
# Without compinit (zsh -f) the completion waits in precmd for compdef to appear.
assert_eq "_cudaenv_hook,_cudaenv_compdef|_cudaenv_hook" "$(result hooks)" "precmd and chpwd each have the hook once"
finish
