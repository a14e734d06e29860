#!/usr/bin/env zsh
# Prints the completions zsh offers for a command line: runs an interactive zsh on a
# pseudo-terminal (zpty), loads compinit and `cudaenv init zsh`, types the line plus
# TAB, and has compadd print each candidate between two markers instead of inserting.
# Usage: zsh zsh_capture.zsh 'cudaenv us' [init-first]; INIT_BIN: the cudaenv whose init is
# evaluated (default: cudaenv on PATH).
zmodload zsh/zpty || exit 2
zpty capture zsh -f -i
compinit="autoload -Uz compinit; compinit -u -d \"\$HOME/.zcompdump-capture\""
init="eval \"\$(${(q)${INIT_BIN:-cudaenv}} init zsh)\""
# With "init-first", the rc file evaluates the integration before compinit runs.
if [[ ${2-} == init-first ]]; then
  zpty -w capture "PROMPT=''; $init; $compinit"
else
  zpty -w capture "PROMPT=''; $compinit; $init"
fi
zpty -w capture 'bindkey "^I" complete-word; zstyle ":completion:*" list-grouped false; zstyle ":completion:*" insert-tab false'
zpty -w capture 'null-line() { print -n "\n@@MA""RK@@\n" }; compprefuncs=(null-line); comppostfuncs=(null-line exit)'
zpty -w capture 'compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a hits; builtin compadd -A hits "$@"
  local hit; for hit in $hits; do print -r -- "@@HI""T@@$hit"; done
  builtin compadd "$@"
}'
zpty -w -n capture "$1"$'\t'
local line output
integer deadline=$(( SECONDS + 20 ))
while (( SECONDS < deadline )); do
  if zpty -r -t capture line 2>/dev/null; then
    output+=$line
    [[ $output == *@@MARK@@*@@MARK@@* ]] && break
  else
    sleep 0.05
  fi
done
zpty -d capture
print -r -- ${(F)${(M)${(f)${output//$'\r'/}}:#@@HIT@@*}//@@HIT@@/}
