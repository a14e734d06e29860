# The hook's fast path in real bash, zsh and fish: a cd that cannot change the toolkit
# (inside the same project, no cuda.toml between) runs no `cudaenv hook-env`, one that can
# (a nested project, a new cuda.toml between, leaving) does; and a cuda.toml with 20,000
# [env] keys leaves a shell in which commands still run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_shell.sh"
setup_projects
LOG="$WORK/cudaenv-calls"
# Every call the integration makes goes through this wrapper, which logs its arguments.
printf '#!/bin/sh\necho "$*" >>"%s"\nexec "%s" "$@"\n' "$LOG" "$CUDAENV" >"$WORK/counting-cudaenv"
chmod +x "$WORK/counting-cudaenv"
DEEP="$WORK/p1"
for i in $(seq 1 50); do DEEP="$DEEP/d$i"; done
mkdir -p "$DEEP" "$WORK/big/sub" "$WORK/big-untrusted"
{
  printf '[cuda]\nversion = "12.1"\n\n[env]\n'
  for i in $(seq 1 20000); do printf 'VARIABLE_%d = "value number %d"\n' "$i" "$i"; done
} >"$WORK/big/cuda.toml"
cp "$WORK/big/cuda.toml" "$WORK/big-untrusted/cuda.toml"
"$CUDAENV" trust "$WORK/big/cuda.toml" >/dev/null 2>&1 || fail "cudaenv trust big/cuda.toml"

# The same scenario for every shell: $1 is how it runs a command and records its output.
scenario_lines() {
  cat <<LINES
cd "$WORK/p1"
r p1_which "\$(command -v nvcc)"
r entered "\$(calls)"
cd sub
cd ..
cd "$DEEP"
r deep_which "\$(command -v nvcc)"
$1 deep_fast taken
cd ../../..
cd "$WORK/p1/sub"
r same_project "\$(calls)"
cd "$WORK/p1/d1/d2/d3"
printf '[cuda]\nversion = "12.4"\n' >"$WORK/p1/d1/cuda.toml"
r between_which "\$(command -v nvcc)"
rm "$WORK/p1/d1/cuda.toml"
r between_removed_which "\$(command -v nvcc)"
r before_inner "\$(calls)"
cd "$WORK/p1/inner"
r inner_which "\$(command -v nvcc)"
r inner_calls "\$(calls)"
cd "$WORK/p1/sub"
r back_which "\$(command -v nvcc)"
cd "\$HOME"
r left_which "\$(command -v nvcc)"
r left_cuda_home "\$CUDA_HOME"
r left_calls "\$(calls)"
cd "\$HOME/elsewhere"
cd "\$HOME"
r outside_calls "\$(calls)"
cd "$WORK/big"
r big_echo "\$(/bin/echo ran)"
r big_cuda_home "\$CUDA_HOME"
cd sub
cd ..
r big_again "\$(/bin/echo ran)"
cd "$WORK/big-untrusted"
r untrusted_echo "\$(/bin/echo ran)"
cd "\$HOME"
r home_echo "\$(/bin/echo ran)"
LINES
}

check_results() {  # check_results SHELL ERR_FILE
  local shell=$1 err=$2
  assert_eq "$TK121/bin/nvcc" "$(result p1_which)" "$shell: p1 applies 12.1"
  assert_eq "$TK121/bin/nvcc" "$(result deep_which)" "$shell: 50 folders down p1 keeps 12.1"
  assert_eq "taken" "$(result deep_fast)" "$shell: an unchanged prompt 50 folders down takes the fast path"
  assert_eq "$(result entered)" "$(result same_project)" "$shell: cds within p1 run no hook-env"
  assert_eq "$TK124/bin/nvcc" "$(result between_which)" "$shell: a cuda.toml created between \$PWD and p1 takes over"
  assert_eq "$TK121/bin/nvcc" "$(result between_removed_which)" "$shell: removing it gives p1's back"
  assert_eq "$TK124/bin/nvcc" "$(result inner_which)" "$shell: a cd into the nested project switches"
  check "$shell: and runs hook-env for it" test "$(result inner_calls)" -gt "$(result before_inner)"
  assert_eq "$TK121/bin/nvcc" "$(result back_which)" "$shell: back in p1"
  assert_eq "$CUDAENV_ROOT/shims/nvcc" "$(result left_which)" "$shell: leaving p1 drops the toolkit from PATH"
  assert_eq "/user/cuda" "$(result left_cuda_home)" "$shell: leaving restores CUDA_HOME"
  assert_eq "$(result left_calls)" "$(result outside_calls)" "$shell: cds outside any project run no hook-env"
  assert_eq "ran" "$(result big_echo)" "$shell: commands run in a project with 20,000 [env] keys"
  assert_eq "$TK121" "$(result big_cuda_home)" "$shell: its toolkit is still applied"
  assert_eq "ran" "$(result big_again)" "$shell: and still after more prompts"
  assert_eq "ran" "$(result untrusted_echo)" "$shell: and with the file untrusted"
  assert_eq "ran" "$(result home_echo)" "$shell: and after leaving"
  assert_eq "1" "$(count_lines "$err" "(20000 variables) is too large for the shell")" \
    "$shell: the refusal is said once"
  assert_eq "1" "$(count_lines "$err" "and 19990 more), not applied")" \
    "$shell: the trust notice names ten keys and counts the rest"
  assert_eq "" "$(grep -E 'Argument list too long|not found|_cudaenv[a-z_]*:[0-9]+:' "$err")" "$shell: no shell errors"
}

for shell in bash zsh; do
  command -v $shell >/dev/null || { echo "SKIPPED: $shell is not installed"; continue; }
  : >"$RESULTS"
  : >"$LOG"
  "$CUDAENV" init $shell | sed "s|$CUDAENV|$WORK/counting-cudaenv|g" >"$WORK/init.$shell"
  {
    echo "PS1=''; PS2=''"
    echo "r() { printf '%s=%s\n' \"\$1\" \"\$2\" >>\"$RESULTS\"; }"
    echo "calls() { grep -c '^hook-env' \"$LOG\"; }"
    echo "export CUDA_HOME=/user/cuda"
    echo ". \"$WORK/init.$shell\""
    scenario_lines '_cudaenv_unchanged && r'
  } >"$WORK/scenario.$shell"
  case $shell in
    bash) interactive bash --norc --noprofile -i <"$WORK/scenario.$shell" >"$WORK/out" 2>"$WORK/err.$shell" ;;
    zsh) interactive zsh -f -i <"$WORK/scenario.$shell" >"$WORK/out" 2>"$WORK/err.$shell" ;;
  esac
  check_results $shell "$WORK/err.$shell"
done

if command -v fish >/dev/null && command -v script >/dev/null; then
  : >"$RESULTS"
  : >"$LOG"
  "$CUDAENV" init fish | sed "s|$CUDAENV|$WORK/counting-cudaenv|g" >"$WORK/init.fish"
  {
    echo "function r; printf '%s=%s\n' \$argv[1] \"\$argv[2]\" >>\"$RESULTS\"; end"
    echo "function calls; grep -c '^hook-env' \"$LOG\"; end"
    echo "set -gx CUDA_HOME /user/cuda"
    echo "source \"$WORK/init.fish\""
    # fish spells command substitution (...) and `and` instead of &&.
    scenario_lines '__cudaenv_unchanged; and r' | sed 's/"\$(\(.*\))"$/(\1)/'
    echo "r done yes"
    echo "exit"
  } >"$WORK/scenario.fish"
  TERM=dumb timeout 120 script -qec "fish --no-config -i 2>'$WORK/err.fish'" /dev/null <"$WORK/scenario.fish" >"$WORK/out" 2>&1
  assert_eq "yes" "$(result done)" "the fish scenario ran to its end"
  check_results fish "$WORK/err.fish"
else
  echo "SKIPPED: fish or script(1) is not installed"
fi
finish
