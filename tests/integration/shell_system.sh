# In a hooked bash inside a project, `system` is what PATH held before the hook put the
# project's toolkit in front, and `exec` builds another toolkit's environment on the
# environment from before the hook (no project entries left in PATH or LD_LIBRARY_PATH).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_shell.sh"
setup_projects
SYSTEM="$WORK/system-cuda"
make_fake_toolkit "$SYSTEM" 13.0.0
cat >"$WORK/scenario" <<SCENARIO
PS1=''; PS2=''
r() { printf '%s=%s\n' "\$1" "\$2" >>"$RESULTS"; }
export PATH="$SYSTEM/bin:\$PATH" LD_LIBRARY_PATH=/user/lib
eval "\$("$CUDAENV" init bash)"
cd "$WORK/p1"
r hooked_which "\$(command -v nvcc)"
r system_exec "\$(CUDAENV_VERSION=system cudaenv exec -- nvcc --version | grep release)"
r system_prefix "\$(CUDAENV_VERSION=system cudaenv prefix)"
r system_versions "\$(cudaenv versions | grep system)"
r cuda_system "\$(cudaenv exec --cuda system -- sh -c 'nvcc --version | grep release; echo "\$LD_LIBRARY_PATH"' | tr '\n' ' ')"
r other_exec "\$(cudaenv exec --cuda 12.4 -- sh -c 'echo "\$PATH|\$LD_LIBRARY_PATH|\${__CUDAENV_STATE-none}"')"
r project_exec "\$(cudaenv exec -- nvcc --version | grep release)"
r after_path "\$PATH"
SCENARIO
interactive bash --norc --noprofile -i <"$WORK/scenario" >"$WORK/out" 2>"$WORK/err"

assert_eq "$TK121/bin/nvcc" "$(result hooked_which)" "the hook put p1's toolkit first"
assert_contains "$(result system_exec)" "release 13.0" "CUDAENV_VERSION=system exec runs the system nvcc, not the project's"
assert_eq "$SYSTEM" "$(result system_prefix)" "CUDAENV_VERSION=system prefix is the system toolkit"
assert_contains "$(result system_versions)" "system ($SYSTEM)" "versions names the system toolkit, not the project's"
assert_contains "$(result cuda_system)" "release 13.0, V13.0.42 /user/lib " \
  "exec --cuda system: the environment from before the hook, and the shim finds the system's nvcc"
assert_eq "$TK124/bin:$CUDAENV_ROOT/shims:$SYSTEM/bin:/usr/local/bin:/usr/bin:/bin:$BUILD|$TK124/lib64:/user/lib|none" \
  "$(result other_exec)" "exec --cuda 12.4 in p1: no 12.1 entries, no hook state"
assert_contains "$(result project_exec)" "release 12.1" "plain exec in p1 still runs the project's toolkit"
assert_eq "$TK121/bin:$CUDAENV_ROOT/shims:$SYSTEM/bin:/usr/local/bin:/usr/bin:/bin:$BUILD" "$(result after_path)" \
  "the shell's own PATH is untouched"
assert_eq "" "$(grep '^cudaenv:' "$WORK/err" | grep -v '^cudaenv: CUDA ')" "cudaenv reported no error"
finish
