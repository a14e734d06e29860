# The native shim: resolution, environment, argv/stdin/exit status/signals, fallbacks, rehash.
. "$(dirname "$0")/lib.sh"

make_fake_toolkit "$WORK/tk/cuda-11.8" 11.8.0
make_fake_toolkit "$WORK/tk/cuda-12.1" 12.1.1
# Programs that show what the shim hands over.
cat >"$WORK/tk/cuda-12.1/bin/argv-echo" <<'SH'
#!/bin/sh
for arg in "$@"; do printf '<%s>' "$arg"; done
printf '\n'
SH
printf '#!/bin/sh\ncat\n' >"$WORK/tk/cuda-12.1/bin/stdin-echo"
printf '#!/bin/sh\necho started\nexec sleep 30\n' >"$WORK/tk/cuda-12.1/bin/sleeper"
printf '#!/bin/sh\necho "root=${CUDAENV_ROOT:-unset}"\n' >"$WORK/tk/cuda-12.1/bin/root-echo"
chmod +x "$WORK/tk/cuda-12.1/bin/"*
"$CUDAENV" add "$WORK/tk/cuda-11.8" 2>/dev/null
"$CUDAENV" add "$WORK/tk/cuda-12.1" 2>/dev/null
SHIMS="$CUDAENV_ROOT/shims"
export PATH="$SHIMS:$PATH"

check "the shim is a static executable" sh -c "ldd '$BUILD/cudaenv-shim' 2>&1 | grep -q 'not a dynamic executable'"
assert_eq "argv-echo nvcc ptxas root-echo sleeper stdin-echo" "$(ls "$SHIMS" | tr '\n' ' ' | sed 's/ $//')" "one shim per program"
if [ "$(stat -c %d "$SHIMS")" = "$(stat -c %d "$BUILD")" ]; then
  check "shims are hard links to cudaenv-shim" test "$SHIMS/nvcc" -ef "$BUILD/cudaenv-shim"
else  # across file systems (a tmpfs /tmp) a shim is a copy
  check "shims are copies of cudaenv-shim across file systems" cmp -s "$SHIMS/nvcc" "$BUILD/cudaenv-shim"
fi

mkdir -p "$WORK/proj/sub/deeper" "$WORK/old"
printf '[cuda]\nversion = "12.1"\n' >"$WORK/proj/cuda.toml"
printf '[cuda]\nversion = "11.8"\n' >"$WORK/old/cuda.toml"
cd "$WORK/proj"
assert_contains "$(nvcc --version)" "release 12.1, V12.1.105" "nvcc in the project"
cd sub/deeper
assert_contains "$(nvcc --version)" "release 12.1, V12.1.105" "nvcc in a subfolder"
assert_eq "nvcc=$WORK/tk/cuda-12.1/bin/nvcc CUDA_HOME=$WORK/tk/cuda-12.1 LD_LIBRARY_PATH=$WORK/tk/cuda-12.1/lib64" \
  "$(nvcc --cudaenv-probe)" "the shim sets the toolkit environment"
assert_contains "$(CUDAENV_VERSION=11.8 nvcc --version)" "release 11.8, V11.8.89" "CUDAENV_VERSION overrides"
cd "$WORK/old"
assert_contains "$(nvcc --version)" "release 11.8" "another project, another toolkit"

# A folder reached through a symlink belongs to the project the shell shows it in.
mkdir -p "$WORK/elsewhere" "$WORK/linked"
printf '[cuda]\nversion = "11.8"\n' >"$WORK/linked/cuda.toml"
ln -s "$WORK/elsewhere" "$WORK/linked/data"
cd "$WORK/linked/data"
assert_contains "$(nvcc --version)" "release 11.8" "shim: the logical path's cuda.toml governs"
assert_eq "11.8.0 (set by $WORK/linked/cuda.toml)" "$("$CUDAENV" current)" "cli: the same answer as the shim"
cd "$WORK/proj"
assert_eq "<a b><'q'><\"d\"><><\$HOME>" "$(argv-echo 'a b' "'q'" '"d"' '' '$HOME')" "argv passes through untouched"
assert_eq "$(printf 'line 1\nline 2')" "$(printf 'line 1\nline 2\n' | stdin-echo)" "stdin passes through"
nvcc --exit 42
assert_eq 42 "$?" "exit status passes through"

# exec, not a child: the process the shell started becomes the real program.
sleeper >"$WORK/sleeper.out" &
pid=$!
# The pid goes shim -> sh (the fake program) -> sleep; wait for the last exec, not for output.
sleep_binary=$(readlink -f /bin/sleep)
for _ in $(seq 100); do [ "$(readlink -f /proc/$pid/exe)" = "$sleep_binary" ] && break; sleep 0.05; done
assert_eq "$sleep_binary" "$(readlink -f /proc/$pid/exe)" "the shim's pid runs the real program"
kill -TERM "$pid"
wait "$pid"
assert_eq 143 "$?" "signals reach the real program"

# A program missing from the selected toolkit: 127 and where it is.
run_capture env CUDAENV_VERSION=11.8 argv-echo x
assert_eq 127 "$STATUS" "missing program exits 127"
assert_contains "$ERR" "cudaenv: error: argv-echo is not part of CUDA 11.8.0 (set by CUDAENV_VERSION)" "names version and origin"
assert_contains "$ERR" "it is in: 12.1.1" "says which versions have it"

# A version that is not installed.
run_capture env CUDAENV_VERSION=12.9 nvcc --version
assert_eq 1 "$STATUS" "shim with a missing version fails"
assert_contains "$ERR" "CUDA 12.9 is not installed (set by CUDAENV_VERSION)" "shim names the missing version"

# system: the first real program after the shims folder, never the shim itself.
make_fake_toolkit "$WORK/system-cuda" 12.4.1
run_capture env CUDAENV_VERSION=system PATH="$SHIMS:$WORK/system-cuda/bin:/usr/bin:/bin" nvcc --version
assert_contains "$OUT" "release 12.4" "system falls through to the next nvcc on PATH"
# (with its own system toolkit on PATH, so the machine's /usr/local/cuda, or its absence, does not matter)
run_capture env CUDAENV_VERSION=system PATH="$SHIMS:$WORK/system-cuda/bin:/usr/bin:/bin" sleeper
assert_eq 127 "$STATUS" "system without the program: 127, no recursion"
assert_contains "$ERR" "sleeper is not part of CUDA system" "system miss is explained"

# The shim finds its root from its own location when CUDAENV_ROOT is not exported (IDEs, cron).
cd "$WORK/proj"
assert_contains "$(env -u CUDAENV_ROOT "$SHIMS/nvcc" --version)" "release 12.1" "root derived from the shim's folder"
assert_eq "root=unset" "$(env -u CUDAENV_ROOT "$SHIMS/root-echo")" "the derived root is not exported to the program"

# rehash: concurrent runs serialise; stale shims go; no lock file problems.
for i in 1 2 3 4 5 6 7 8; do "$CUDAENV" rehash 2>>"$WORK/rehash.err" & done
wait
assert_eq "" "$(cat "$WORK/rehash.err")" "eight concurrent rehashes, no errors"
assert_eq "argv-echo nvcc ptxas root-echo sleeper stdin-echo" "$(ls "$SHIMS" | tr '\n' ' ' | sed 's/ $//')" "shims intact after concurrent rehash"
rm "$WORK/tk/cuda-12.1/bin/sleeper"
run_capture "$CUDAENV" rehash
assert_contains "$ERR" "removed shims: sleeper" "rehash removes shims of programs that are gone"
check "sleeper shim removed" test ! -e "$SHIMS/sleeper"
printf '#!/bin/sh\necho new\n' >"$WORK/tk/cuda-11.8/bin/newtool"
chmod +x "$WORK/tk/cuda-11.8/bin/newtool"
run_capture "$CUDAENV" rehash
assert_contains "$ERR" "new shims: newtool" "rehash adds new programs"
make_fake_toolkit "$WORK/tk/cuda-12.4" 12.4.1
printf '#!/bin/sh\necho only-in-12.4\n' >"$WORK/tk/cuda-12.4/bin/extra"
chmod +x "$WORK/tk/cuda-12.4/bin/extra"
"$CUDAENV" add "$WORK/tk/cuda-12.4" 2>/dev/null
check "add rehashes by itself" test -e "$SHIMS/extra"

finish
