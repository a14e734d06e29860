# The lean front (`cudaenv`, src/cli/front.c) against cudaenv-full, the C++ program it hands
# to: every case the front answers alone (or with cudaenv-hook) gives the same bytes (stdout,
# stderr, exit status) as the full program, and every case it is unsure of is handed over.
. "$(dirname "$0")/lib.sh"

FULL="$BUILD/cudaenv-full"
# A copy of the front with no cudaenv-full to hand to: what it answers, it answers alone.
mkdir -p "$WORK/alone/bin"
cp "$CUDAENV" "$WORK/alone/bin/cudaenv"
ALONE="$WORK/alone/bin/cudaenv"

# compare DESCRIPTION FRONT ARGS...: FRONT and cudaenv-full print the same, byte for byte.
compare() {
  local what=$1 front=$2
  shift 2
  local front_status=0 full_status=0
  "$front" "$@" >"$WORK/front.out" 2>"$WORK/front.err" || front_status=$?
  "$FULL" "$@" >"$WORK/full.out" 2>"$WORK/full.err" || full_status=$?
  CHECKS=$((CHECKS + 1))
  if ! cmp -s "$WORK/front.out" "$WORK/full.out" || ! cmp -s "$WORK/front.err" "$WORK/full.err" ||
    [ "$front_status" != "$full_status" ]; then
    fail "$what: the front printed [$(cat "$WORK/front.out")][$(cat "$WORK/front.err")] ($front_status)," \
      "cudaenv-full [$(cat "$WORK/full.out")][$(cat "$WORK/full.err")] ($full_status)"
  fi
}

# answered DESCRIPTION ARGS...: the front answers alone, as cudaenv-full does.
answered() {
  local what=$1
  shift
  compare "$what" "$ALONE" "$@"
  [ -s "$WORK/front.out" ] || fail "$what: nothing printed"
}

# handed_off DESCRIPTION ARGS...: the front leaves it to cudaenv-full, which answers as it
# would when run directly.
handed_off() {
  local what=$1
  shift
  CHECKS=$((CHECKS + 1))
  local status=0
  "$ALONE" "$@" >/dev/null 2>"$WORK/alone.err" || status=$?
  [ "$status" = 127 ] || fail "$what: the front answered it itself (status $status)"
  assert_contains "$(cat "$WORK/alone.err")" "cudaenv-full is missing" "$what: the missing full program is named"
  compare "$what" "$CUDAENV" "$@"
}

make_fake_toolkit "$WORK/tk/cuda-12.1" 12.1.1
make_fake_toolkit "$WORK/tk/cuda-12.4" 12.4.1
make_fake_toolkit "$WORK/tk/cuda-11.8" 11.8.0
"$CUDAENV" add "$WORK/tk/cuda-12.1" 2>/dev/null
"$CUDAENV" add "$WORK/tk/cuda-12.4" 2>/dev/null
"$CUDAENV" add "$WORK/tk/cuda-11.8" --as my-cuda 2>/dev/null
mkdir -p "$CUDAENV_ROOT/versions/12.4.0/bin" "$CUDAENV_ROOT/versions/13.0.0" "$CUDAENV_ROOT/versions/.staging"
mkdir -p "$WORK/exact/a/b" "$WORK/prefix" "$WORK/plain"
printf '[cuda]\nversion = "12.1.1"\n' >"$WORK/exact/cuda.toml"
printf '[cuda]\nversion = "12"\narch = ["8.9"]\n' >"$WORK/prefix/cuda.toml"

answered "--version" --version
assert_eq "$("$FULL" --version 2>&1 >&-; echo $?)" "$("$ALONE" --version 2>&1 >&-; echo $?)" "--version to a closed stdout"
cd "$WORK/exact/a/b" || exit 1
answered "versions, an exact request from cuda.toml" versions
answered "versions --bare" versions --bare
answered "current, an exact request" current
cd "$WORK/prefix" || exit 1
answered "versions, a prefix request: the newest match is active" versions
answered "current, a prefix request" current
CUDAENV_VERSION=my-cuda answered "current, a registered name from CUDAENV_VERSION" current
CUDAENV_VERSION=12.4 answered "versions, a prefix in CUDAENV_VERSION" versions
echo 12.1 >"$CUDAENV_ROOT/version"
cd "$WORK/plain" || exit 1
answered "versions, the global file" versions
answered "current, the global file" current

# "system" found on PATH is listed first, with the hook's own PATH entry ignored.
make_fake_toolkit "$WORK/sys/cuda" 12.0.1
PATH="$WORK/sys/cuda/bin:$PATH" answered "versions, a system toolkit on PATH" versions
PATH="$CUDAENV_ROOT/shims:$WORK/sys/cuda/bin:$PATH" answered "versions, PATH with the shims first" versions
PATH="$WORK/sys/cuda/bin/:$PATH" handed_off "versions, a PATH folder lexically_normal() respells" versions
PATH="$CUDAENV_ROOT/shims:$WORK/tk/cuda-12.4/bin:$PATH" answered "versions, a toolkit's nvcc on PATH" versions
# shellcheck disable=SC2016  # expanded by the inner shell
hook_state=$(PATH="$WORK/tk/cuda-12.4/bin:$PATH" bash -c 'eval "$("$0" hook-env --shell bash 2>/dev/null)"; printf %s "$__CUDAENV_STATE"' "$FULL")
assert_contains "$hook_state" "P	PATH	$WORK/tk/cuda-12.1/bin" "hook-env's state owns the toolkit's PATH entry"
__CUDAENV_STATE=$hook_state PATH="$WORK/tk/cuda-12.1/bin:$WORK/sys/cuda/bin:$PATH" \
  answered "versions, inside a shell the hook changed" versions
__CUDAENV_STATE=$hook_state PATH="$WORK/tk/cuda-12.1/bin:$PATH" answered "versions, the hook's nvcc is not the system's" versions
__CUDAENV_STATE=$hook_state answered "current, inside a shell the hook changed" current

# A shared root: its toolkits listed with their root, the user's names hiding its own.
mkdir -p "$WORK/shared/versions/12.1.1/bin" "$WORK/shared/versions/10.2/bin" "$WORK/shared/versions/12.6.0/bin"
ln -s "$WORK/tk/cuda-12.4" "$WORK/shared/versions/site-cuda"
CUDAENV_SHARED_ROOT=$WORK/shared answered "versions with a shared root" versions
CUDAENV_SHARED_ROOT=$WORK/shared CUDAENV_VERSION=12.6 answered "current, a toolkit of the shared root" current
CUDAENV_SHARED_ROOT=$WORK/shared CUDAENV_VERSION=12.6 answered "versions, a toolkit of the shared root active" versions
CUDAENV_SHARED_ROOT=$WORK/shared CUDAENV_VERSION=12.1.1 answered "versions, the user's name hides the shared one" versions
CUDAENV_SYSTEM_ROOT=$WORK/shared answered "versions with the shared root's old variable" versions
CUDAENV_SHARED_ROOT=$CUDAENV_ROOT answered "versions, the shared root is the user's" versions

# 1000 toolkits.
(cd "$CUDAENV_ROOT/versions" && seq 1 995 | sed "s|.*|11.&.0/bin|" | xargs mkdir -p)
assert_eq 1000 "$("$CUDAENV" versions --bare | wc -l)" "1000 toolkits"
answered "versions, 1000 toolkits" versions
answered "versions --bare, 1000 toolkits" versions --bare
cd "$WORK/prefix" || exit 1
answered "versions, 1000 toolkits, a prefix request" versions
answered "current, 1000 toolkits, a prefix request" current
cd "$WORK/exact" || exit 1
answered "current, 1000 toolkits" current

# What the front leaves to the full program: the same bytes as running it directly.
handed_off "versions --json" versions --json
handed_off "current --json" current --json
handed_off "an option the front does not know" versions --bogus
handed_off "another command" which nvcc
handed_off "a word from other tools" ls
handed_off "no command" --help
CUDAENV_VERSION=9.9 handed_off "a version not installed: a warning" versions
CUDAENV_VERSION=9.9 handed_off "a version not installed: an error" current
CUDAENV_VERSION=13.0 handed_off "a toolkit without bin/" current
CUDAENV_VERSION=system PATH="$WORK/sys/cuda/bin:$PATH" handed_off "system selected" current
CUDAENV_ROOT=relative/root handed_off "a relative CUDAENV_ROOT" current
__CUDAENV_STATE=garbage answered "versions, a garbled state: nothing owned" versions
mkdir -p "$WORK/broken" "$WORK/unknown"
printf '[cuda\n' >"$WORK/broken/cuda.toml"
printf '[cuda]\nversion = "12.4"\ncolour = "red"\n' >"$WORK/unknown/cuda.toml"
cd "$WORK/broken" || exit 1
handed_off "a broken cuda.toml" versions
cd "$WORK/unknown" || exit 1
handed_off "a cuda.toml with a warning" current
mkdir -p "$WORK/bad-source"
printf '[cuda]\nversion = "12.4"\nsource = "nowhere"\n' >"$WORK/bad-source/cuda.toml"
cd "$WORK/bad-source" || exit 1
handed_off "a cuda.toml the full reader refuses" current
mkdir -p "$CUDAENV_ROOT/versions/caf"$'\xc3\xa9'"/bin"
handed_off "a name terminal_safe() would escape" versions
rm -rf "$CUDAENV_ROOT/versions/caf"$'\xc3\xa9'
rm -f "$CUDAENV_ROOT/version"
cd "$WORK/plain" || exit 1
handed_off "nothing selected: system" versions

# hook-env: the front answers the common case itself (lean/lean_hook.c) and hands the rest to
# cudaenv-hook, the C++ run_hook. Each case runs both with one environment (env -i) and folder,
# the stamps folder removed before each: stdout, stderr, exit status and the stamp files made
# must be the same. The answered cases run the front copy with no cudaenv-hook beside it, so a
# front that handed them off would fail with "missing".
HOOK="$BUILD/cudaenv-hook"
HOOK_ENV=()
# The lean caches (lean/lean_cache.h) are the front's own: only cudaenv's C writes them.
stamps() {
  find "$CUDAENV_ROOT/cache" \( -name versions.index -o -name 'cuda-toml.*' \) -prune -o \
    \( -printf '%P %y %m ' -type f -printf '%T@ %s\n' -o -printf '\n' \) 2>/dev/null | sort
}
hook_run() {  # hook_run PROGRAM SHELL NAME: its output in $WORK/NAME.{out,err,status,stamps}
  local status=0
  rm -rf "$CUDAENV_ROOT/cache"
  env -i "${HOOK_ENV[@]}" PWD="$PWD" "$1" hook-env --shell "$2" >"$WORK/$3.out" 2>"$WORK/$3.err" || status=$?
  echo "$status" >"$WORK/$3.status"
  stamps >"$WORK/$3.stamps"
}
hook_same() {  # hook_same DESCRIPTION FRONT SHELL
  hook_run "$2" "$3" front
  hook_run "$HOOK" "$3" full
  CHECKS=$((CHECKS + 1))
  local part
  for part in out err status stamps; do
    cmp -s "$WORK/front.$part" "$WORK/full.$part" ||
      fail "$1 ($3): the front's $part [$(cat "$WORK/front.$part")], cudaenv-hook's [$(cat "$WORK/full.$part")]"
  done
}
# hook_answered DESCRIPTION: the front alone gives what cudaenv-hook gives, in each shell.
hook_answered() {
  local shell
  for shell in bash zsh fish; do
    hook_same "$1" "$ALONE" "$shell"
    [ -s "$WORK/front.out" ] || fail "$1 ($shell): nothing printed"
  done
}
# hook_handed_off DESCRIPTION: the front leaves it to cudaenv-hook, and prints what it prints.
hook_handed_off() {
  CHECKS=$((CHECKS + 1))
  hook_run "$ALONE" bash alone
  [ "$(cat "$WORK/alone.status")" = 127 ] || fail "$1: the front answered it itself [$(cat "$WORK/alone.err")]"
  assert_contains "$(cat "$WORK/alone.err")" "cudaenv-full is missing" "$1: the missing program is named"
  local shell
  for shell in bash zsh fish; do hook_same "$1" "$CUDAENV" "$shell"; done
}
# hooked DIR: the environment (NUL-separated) of a bash that ran the hook in DIR, as HOOK_ENV.
hooked() {
  mapfile -d '' HOOK_ENV < <(env -i "${HOOK_ENV[@]}" bash -c 'cd "$1" && eval "$("$2" hook-env --shell bash 2>/dev/null)" && env -0' \
    bash "$1" "$CUDAENV")
}
# The shell's environment: what this script exports (NO_COLOR, HOME, CUDAENV_ROOT, PATH).
base_env() { mapfile -d '' HOOK_ENV < <(env -0); }
value_of() {  # value_of NAME: its value in HOOK_ENV
  local entry
  for entry in "${HOOK_ENV[@]}"; do [[ $entry == "$1="* ]] && printf '%s' "${entry#*=}"; done
}

rm -f "$CUDAENV_ROOT/version"
base_env
cd "$WORK/exact" || exit 1
hook_answered "hook-env, first run in a project"
cd "$WORK/exact/a/b" || exit 1
hook_answered "hook-env, first run in a subfolder"
hooked "$WORK/exact/a/b"
assert_contains "$(value_of __CUDAENV_STATE)" "P	PATH	$WORK/tk/cuda-12.1/bin" "the front's state owns the toolkit's PATH entry"
hook_answered "hook-env again, nothing changed"
cd "$WORK/prefix" || exit 1
hook_answered "hook-env, cd to another project (an arch list)"
HOOK_ENV+=("CUDAENV_QUIET=1")
hook_answered "hook-env, CUDAENV_QUIET=1"
hooked "$WORK/prefix"
assert_contains "$(value_of __CUDAENV_STATE)" "U	CUDAARCHS	89" "the state owns CUDAARCHS"
cd "$WORK/plain" || exit 1
hook_answered "hook-env, leaving to a folder with nothing set"
[ -s "$WORK/front.err" ] && [ -s /usr/local/cuda/bin/nvcc ] &&
  assert_contains "$(cat "$WORK/front.err")" "CUDA system (no version set)" "leaving: the system toolkit announced"
HOOK_ENV+=("PATH=/mine/bin:$(value_of PATH)" "CUDA_HOME=/mine" "CUDAARCHS=70")
hook_answered "hook-env, the user changed PATH, CUDA_HOME and CUDAARCHS after the hook"
assert_contains "$(cat "$WORK/front.out")" "'/mine/bin" "the user's PATH entry kept"
assert_not_contains "$(cat "$WORK/front.out")" "CUDA_HOME" "the user's CUDA_HOME kept"
cd "$WORK/exact" || exit 1
hook_answered "hook-env, the user's changes, back in a project"

base_env
cd "$WORK/plain" || exit 1
hook_answered "hook-env, first run with nothing set"
HOOK_ENV+=("CUDAENV_VERSION=12.1.1")
hook_answered "hook-env, CUDAENV_VERSION exact"
HOOK_ENV+=("CUDAENV_VERSION=12")
hook_answered "hook-env, CUDAENV_VERSION a prefix"
HOOK_ENV+=("PATH=/usr/bin::/bin:")
hook_answered "hook-env, empty PATH entries (fish's list)"
base_env
HOOK_ENV+=("CUDAENV_SHARED_ROOT=$WORK/shared" "CUDAENV_VERSION=12.6")
hook_answered "hook-env, a toolkit of the shared root (two versions folders watched)"
base_env
echo 12.4 >"$CUDAENV_ROOT/version"
hook_answered "hook-env, the global file, first run (silent)"
hooked "$WORK/exact"
hook_answered "hook-env, the global file after a project"
rm "$CUDAENV_ROOT/version"

base_env
cd "$WORK/exact/a" || exit 1
HOOK_ENV+=("__CUDAENV_STATE=cudaenv1
$WORK/exact/cuda.toml@1.2

A	12.1.1	set by $WORK/exact/cuda.toml
P	PATH	$WORK/tk/cuda-12.1/bin")
hook_answered "hook-env, a cudaenv1 state"
base_env
HOOK_ENV+=("__CUDAENV_STATE=garbage")
hook_answered "hook-env, a garbled state"
base_env
HOOK_ENV+=("__CUDAENV_STATE=!!cudaenv2
N	0123
A	12.1.1\\tset by $WORK/exact/cuda.toml
P	PATH	/usr/bin
S	CUDA_HOME	x\\ty	old\\\\value
U	CUDA_PATH	a
P	LD_LIBRARY_PATH
Q	odd	record
P	PATH	/bin	extra" "CUDA_HOME=x	y" "CUDA_PATH=a")
hook_answered "hook-env, a state with marks, notices, escapes and odd records"

# Folder names the shells must quote: spaces, quotes, $, backslash, newline.
base_env
odd="$WORK/it's a \$HOME \\ \"dir\""$'\n'"end"
mkdir -p "$odd/sub dir" "$WORK/tk/odd 'tk' \$x"
make_fake_toolkit "$WORK/tk/odd 'tk' \$x/cuda" 12.6.1
"$CUDAENV" add "$WORK/tk/odd 'tk' \$x/cuda" --as odd-one 2>/dev/null
printf '[cuda]\nversion = "odd-one"\n' >"$odd/cuda.toml"
cd "$odd/sub dir" || exit 1
hook_answered "hook-env, odd folder names"
hooked "$odd/sub dir"
cd "$WORK/exact" || exit 1
hook_answered "hook-env, leaving odd folder names"

# What the front leaves to cudaenv-hook.
base_env
mkdir -p "$WORK/with-env" "$WORK/only-arch"
printf '[cuda]\nversion = "12.4"\n[env]\nFOO = "bar"\n' >"$WORK/with-env/cuda.toml"
printf '[cuda]\narch = ["8.9"]\n' >"$WORK/only-arch/cuda.toml"
cd "$WORK/with-env" || exit 1
hook_handed_off "hook-env, a cuda.toml with [env]"
cd "$WORK/broken" || exit 1
hook_handed_off "hook-env, a broken cuda.toml"
cd "$WORK/unknown" || exit 1
hook_handed_off "hook-env, a cuda.toml with a warning"
cd "$WORK/only-arch" || exit 1
hook_handed_off "hook-env, a cuda.toml that pins no version"
cd "$WORK/plain" || exit 1
HOOK_ENV+=("CUDAENV_VERSION=system")
hook_handed_off "hook-env, system selected"
base_env
HOOK_ENV+=("CUDAENV_VERSION=9.9")
hook_handed_off "hook-env, a version not installed"
base_env
HOOK_ENV+=("__CUDAENV_STATE=cudaenv2
A	$(head -c 70000 /dev/zero | tr '\0' x)")
hook_handed_off "hook-env, a state over the limit"
base_env
HOOK_ENV+=("__CUDAENV_STATE=cudaenv2
S	CUDAENV_ROOT	$WORK/elsewhere	$CUDAENV_ROOT")
hook_handed_off "hook-env, a state that owns CUDAENV_ROOT"
base_env
handed_off "hook-env for another shell: CLI11's error" hook-env --shell tcsh
handed_off "hook-env with more words" hook-env --shell bash extra
finish
