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
__CUDAENV_STATE=garbage handed_off "a state only the full reader reads" versions
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

# hook-env runs in cudaenv-hook, the same code linked statically: the same bytes, stamps included.
cp "$BUILD/cudaenv-hook" "$WORK/alone/bin/"
cd "$WORK/exact/a/b" || exit 1
for shell in bash zsh fish; do
  answered "hook-env --shell $shell" hook-env --shell "$shell"
  __CUDAENV_STATE=$hook_state answered "hook-env --shell $shell, inside a shell the hook changed" hook-env --shell "$shell"
done
rm "$WORK/alone/bin/cudaenv-hook"
handed_off "hook-env for another shell: CLI11's error" hook-env --shell tcsh
handed_off "hook-env with more words" hook-env --shell bash extra
finish
