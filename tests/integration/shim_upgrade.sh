# An upgrade needs no `cudaenv rehash`: shims made by a wheel whose shim was built at an earlier
# commit keep working after `pip install -U` (and `uv pip install`) of the current wheel, are
# relinked to the new installed shim by the first call through them, and replay again (the fast
# path). The earlier wheel holds the shim as it was at EARLIER, compiled here from that commit's
# sources (the shim is one C file and the record reader), and the CLI of this build.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_replay.sh"
EARLIER=92295268abce5a1d637425dedb7deefe14edd798  # before shims followed upgrades
git -C "$SRC" cat-file -e "$EARLIER^{commit}" 2>/dev/null ||
  skip "$SRC is not a git checkout holding commit $EARLIER, whose shim the earlier wheel carries"
python3 -c 'import ensurepip, venv' 2>/dev/null || skip "python3's venv and ensurepip are missing (apt-get install python3-venv)"
if command -v musl-gcc >/dev/null; then SHIM_CC=(musl-gcc -static); else SHIM_CC=(cc -static); fi

# The stage `cmake --install` lays out, twice: the current one, and one with the earlier shim.
run_capture cmake --install "$BUILD" --prefix "$WORK/stage-new"
assert_eq 0 "$STATUS" "cmake --install: $ERR"
cp -a "$WORK/stage-new" "$WORK/stage-old"
mkdir -p "$WORK/earlier/src/replay" "$WORK/earlier/src/shim"
for file in src/shim/shim.c src/replay/record.c src/replay/record.h; do
  git -C "$SRC" show "$EARLIER:$file" >"$WORK/earlier/$file" || fail "git show $EARLIER:$file"
done
"${SHIM_CC[@]}" -std=c11 -O2 -I"$WORK/earlier/src" -o "$WORK/stage-old/libexec/cudaenv/cudaenv-shim" \
  "$WORK/earlier/src/shim/shim.c" "$WORK/earlier/src/replay/record.c" || fail "the earlier shim does not build"
mkdir -p "$WORK/wheels"
python3 "$SRC/scripts/release/wheel.py" "$WORK/stage-old" 0.0.1 linux_x86_64 "$SRC/README.md" "$WORK/wheels" >/dev/null &&
  python3 "$SRC/scripts/release/wheel.py" "$WORK/stage-new" 0.0.2 linux_x86_64 "$SRC/README.md" "$WORK/wheels" >/dev/null ||
  fail "scripts/release/wheel.py"
OLD_WHEEL="$WORK/wheels/cudaenv-0.0.1-py3-none-linux_x86_64.whl"
NEW_WHEEL="$WORK/wheels/cudaenv-0.0.2-py3-none-linux_x86_64.whl"

make_fake_toolkit "$WORK/tk/cuda-12.4" 12.4.1
mkdir -p "$WORK/proj"
printf '[cuda]\nversion = "12.4"\n' >"$WORK/proj/cuda.toml"

# upgrade_through NAME INSTALL_OLD INSTALL_NEW: a prefix at $WORK/NAME gets the earlier wheel,
# shims and records, then the current wheel; the shims must follow with no rehash.
upgrade_through() {
  local name=$1 prefix="$WORK/$1"
  export CUDAENV_ROOT="$WORK/root-$name"
  RECORDS="$CUDAENV_ROOT/cache/shim"
  eval "$2" >"$WORK/$name-old.log" 2>&1 || { fail "$name: the earlier wheel does not install: $(cat "$WORK/$name-old.log")"; return; }
  run_capture "$prefix/bin/cudaenv" add "$WORK/tk/cuda-12.4"
  assert_eq 0 "$STATUS" "$name: the earlier cudaenv registers a toolkit: $ERR"
  check "$name: its shims are the earlier shim" test "$CUDAENV_ROOT/shims/nvcc" -ef "$prefix/libexec/cudaenv/cudaenv-shim"
  settle
  assert_contains "$(answer)" "release 12.4" "$name: nvcc through the earlier shim"
  settle
  check "$name: the earlier shim replays" replayed

  eval "$3" >"$WORK/$name-new.log" 2>&1 || { fail "$name: the upgrade fails: $(cat "$WORK/$name-new.log")"; return; }
  check "$name: the upgrade put a new shim in place" test ! "$CUDAENV_ROOT/shims/nvcc" -ef "$prefix/libexec/cudaenv/cudaenv-shim"
  assert_contains "$(answer)" "release 12.4" "$name: the first nvcc after the upgrade"
  check "$name: which relinked the shims to the new shim" test "$CUDAENV_ROOT/shims/nvcc" -ef "$prefix/libexec/cudaenv/cudaenv-shim"
  check "$name: ptxas's too" test "$CUDAENV_ROOT/shims/ptxas" -ef "$prefix/libexec/cudaenv/cudaenv-shim"
  settle
  assert_contains "$(answer)" "release 12.4" "$name: nvcc through the new shim"
  settle
  check "$name: the new shim replays" replayed
}

upgrade_through pip "python3 -m venv '$WORK/pip' && '$WORK/pip/bin/pip' install -q --no-index --disable-pip-version-check '$OLD_WHEEL'" \
  "'$WORK/pip/bin/pip' install -q --no-index --disable-pip-version-check -U '$NEW_WHEEL'"

PATH="$PATH${CUDAENV_TEST_TOOLS:+:$CUDAENV_TEST_TOOLS}"
if command -v uv >/dev/null 2>&1; then
  export UV_CACHE_DIR="$WORK/uv-cache"
  upgrade_through uv "uv venv -q '$WORK/uv' && uv pip install -q --offline --python '$WORK/uv/bin/python' '$OLD_WHEEL'" \
    "uv pip install -q --offline --python '$WORK/uv/bin/python' '$NEW_WHEEL'"
else
  echo "uv not installed: the upgrade by uv was not tried"
fi

finish
