# Completions for bash, zsh and fish: every command and flag the CLI has, installed
# versions, remote versions (from `cudaenv list-remote --bare`), and the programs of
# the active toolkit for `which`, each asked of the shell's own completion machinery.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_shell.sh"
setup_projects
# A cudaenv in front of the real one whose list-remote answers without a network.
mkdir -p "$WORK/bin"
cat >"$WORK/bin/cudaenv" <<WRAPPER
#!/bin/sh
if [ "\$1" = list-remote ]; then printf '12.6.3\n12.8.1\n'; exit 0; fi
exec "$CUDAENV" "\$@"
WRAPPER
chmod +x "$WORK/bin/cudaenv"
export PATH="$WORK/bin:$PATH"
cd "$WORK/p1" || exit 1

complete_bash() {  # the candidates bash offers for a command line, sorted, space-separated
  bash --norc --noprofile -c '
    eval "$("${INIT_BIN:-cudaenv}" init bash)"
    line=$1
    read -ra COMP_WORDS <<<"$line"
    [[ $line == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) COMP_LINE=$line COMP_POINT=${#line}
    _cudaenv cudaenv "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    ((${#COMPREPLY[@]})) && printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$1"
}

complete_fish() {
  fish --no-config -c 'set -q INIT_BIN; or set INIT_BIN cudaenv; $INIT_BIN init fish | source; complete -C $argv[1]' "$1" |
    cut -f1 | sort | tr '\n' ' '
}

complete_zsh() {
  timeout 60 zsh "$SRC/tests/integration/zsh_capture.zsh" "$@" | sort | tr '\n' ' '
}

# The CLI's own list of commands and of each command's flags, from --help.
commands=$("$CUDAENV" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF { print $1 }')
flags_of() { "$CUDAENV" "$1" --help | grep -oE '^ +(-[a-z],)?--[a-z][a-z-]*' | sed 's/.*--/--/'; }

assert_contains "$(bash --norc -c 'eval "$(cudaenv init bash)"; complete -p cudaenv')" "-F _cudaenv cudaenv" \
  "init registers the bash completion"
# Every shell's completions against the command table (`--help` prints it): each command, and
# each of its flags.
shells=(bash fish)
if command -v zsh >/dev/null && zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
  shells+=(zsh)
else
  echo "zsh or its zpty module is missing: zsh's completions were not checked"
fi
for shell in "${shells[@]}"; do
  offered=$("complete_$shell" "cudaenv ")
  for command in $commands; do
    assert_contains " $offered" " $command " "$shell completes the command $command"
    flags=$("complete_$shell" "cudaenv $command --")
    for flag in $(flags_of "$command"); do
      assert_contains " $flags" " $flag " "$shell completes $command $flag"
    done
  done
done
bash_commands=$(complete_bash "cudaenv ")
assert_not_contains "$bash_commands" "hook-env" "the hidden hook-env is not offered"

assert_eq "use " "$(complete_bash "cudaenv us")" "bash: cudaenv us"
assert_eq "12.1.1 12.4.1 " "$(complete_bash "cudaenv shell ")" "bash: installed versions for shell"
assert_eq "12.4.1 " "$(complete_bash "cudaenv use 12.4")" "bash: installed versions for use"
assert_eq "12.6.3 12.8.1 " "$(complete_bash "cudaenv install ")" "bash: remote versions for install"
assert_eq "nvcc ptxas " "$(complete_bash "cudaenv which ")" "bash: programs of the active toolkit"
assert_eq "bash dotenv fish github json zsh " "$(complete_bash "cudaenv env --shell ")" "bash: env --shell"
assert_eq "lmod tcl " "$(complete_bash "cudaenv module --format ")" "bash: module --format"
assert_eq "12.1.1 12.4.1 " "$(complete_bash "cudaenv exec --cuda ")" "bash: installed versions for exec --cuda"
# (compgen -c names a program once per PATH folder that has it)
assert_contains "$(complete_bash "cudaenv exec --cuda 12.4 -- cudaen")" "cudaenv " "bash: the program after exec's options"

assert_eq "use " "$(complete_fish "cudaenv us")" "fish: cudaenv us"
assert_eq "12.1.1 12.4.1 " "$(complete_fish "cudaenv uninstall ")" "fish: installed versions for uninstall"
assert_eq "12.6.3 12.8.1 " "$(complete_fish "cudaenv install ")" "fish: remote versions for install"
assert_eq "nvcc ptxas " "$(complete_fish "cudaenv which ")" "fish: programs of the active toolkit"
assert_eq "bash fish zsh " "$(complete_fish "cudaenv init ")" "fish: init shells"
assert_eq "12.1.1 12.4.1 " "$(complete_fish "cudaenv exec --cuda ")" "fish: installed versions for exec --cuda"

if command -v zsh >/dev/null && zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
  assert_eq "use " "$(complete_zsh "cudaenv us")" "zsh: cudaenv us"
  assert_eq "uninstall untrust " "$(complete_zsh "cudaenv un")" "zsh: cudaenv un"
  assert_eq "12.1.1 12.4.1 " "$(complete_zsh "cudaenv prefix ")" "zsh: installed versions for prefix"
  assert_eq "12.6.3 12.8.1 " "$(complete_zsh "cudaenv install ")" "zsh: remote versions for install"
  assert_eq "nvcc ptxas " "$(complete_zsh "cudaenv which ")" "zsh: programs of the active toolkit"
  assert_eq "bash dotenv fish github json zsh " "$(complete_zsh "cudaenv env --shell ")" "zsh: env --shell"
  assert_eq "12.1.1 12.4.1 " "$(complete_zsh "cudaenv exec --cuda ")" "zsh: installed versions for exec --cuda"
  assert_eq "12.1.1 12.4.1 " "$(complete_zsh "cudaenv use " init-first)" "zsh: init evaluated before compinit"
fi

# The real list-remote answers offline, from the releases cudaenv ships.
rm "$WORK/bin/cudaenv"
ln -s "$CUDAENV" "$WORK/bin/cudaenv"
run_capture complete_bash "cudaenv install 13.0"
assert_eq "13.0.0 13.0.1 13.0.2 13.0.3 " "$OUT$ERR" "bash: the shipped release list, no noise"

# cmake --install puts each file where its shell looks for completions.
if cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null 2>&1; then
  check "bash-completion's folder" test -f "$WORK/prefix/share/bash-completion/completions/cudaenv"
  check "zsh's site-functions" test -f "$WORK/prefix/share/zsh/site-functions/_cudaenv"
  check "fish's vendor_completions.d" test -f "$WORK/prefix/share/fish/vendor_completions.d/cudaenv.fish"
else
  fail "cmake --install into a temporary prefix"
fi

# Installed where PATH does not look (~/.local/bin off PATH): init puts cudaenv's folder on
# PATH, so scripts started from the shell can call it and the completions can ask it.
export PATH="/usr/local/bin:/usr/bin:/bin" INIT_BIN="$WORK/prefix/bin/cudaenv"
check "cudaenv is not on PATH for this part" test -z "$(command -v cudaenv)"
run_capture bash --norc --noprofile -c 'eval "$("$1" init bash)"; bash -c "cudaenv --version"' _ "$INIT_BIN"
assert_contains "$OUT" "cudaenv 0." "bash: a script started from the shell finds cudaenv"
run_capture bash --norc --noprofile -c 'eval "$("$1" init bash)"; eval "$("$1" init bash)"; echo "$PATH"' _ "$INIT_BIN"
assert_eq "$CUDAENV_ROOT/shims:/usr/local/bin:/usr/bin:/bin:$WORK/prefix/bin" "$OUT" "init twice adds the folder once, last"
run_capture fish --no-config -c '$argv[1] init fish | source; fish -c "cudaenv --version"' "$INIT_BIN"
assert_contains "$OUT" "cudaenv 0." "fish: a script started from the shell finds cudaenv"
assert_eq "12.1.1 12.4.1 " "$(complete_bash "cudaenv use ")" "bash completes versions with cudaenv off PATH"
run_capture complete_fish "cudaenv use "
assert_eq "12.1.1 12.4.1 " "$OUT" "fish completes versions with cudaenv off PATH"
assert_eq "" "$ERR" "fish prints no error into the command line"
if command -v zsh >/dev/null && zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
  assert_eq "12.1.1 12.4.1 " "$(complete_zsh "cudaenv use ")" "zsh completes versions with cudaenv off PATH"
fi
# The completion file alone (no init), cudaenv nowhere on PATH: fish stays quiet.
run_capture fish --no-config -c 'source $argv[1]; complete -C "cudaenv use "' \
  "$WORK/prefix/share/fish/vendor_completions.d/cudaenv.fish"
assert_eq "" "$ERR" "fish's completion file without cudaenv on PATH prints no error"
finish
