# Shared by the shell_*.sh suites: two fake toolkits, projects around them, and a way to
# read what a scripted interactive shell recorded. Sourced after lib.sh.

RESULTS="$WORK/results"
TK121="$WORK/toolkits/cuda-12.1"
TK124="$WORK/toolkits/cuda-12.4"

setup_projects() {
  make_fake_toolkit "$TK121" 12.1.1
  make_fake_toolkit "$TK124" 12.4.1
  "$CUDAENV" add "$TK121" >/dev/null 2>&1 || fail "cudaenv add 12.1.1"
  "$CUDAENV" add "$TK124" >/dev/null 2>&1 || fail "cudaenv add 12.4.1"
  mkdir -p "$WORK/p1/sub" "$WORK/p1/inner" "$WORK/p2" "$WORK/broken" "$WORK/missing" "$HOME/elsewhere"
  printf '[cuda]\nversion = "12.1"\narch = ["8.9", "9.0"]\n' >"$WORK/p1/cuda.toml"
  printf '[cuda]\nversion = "12.4"\n' >"$WORK/p1/inner/cuda.toml"
  printf '[cuda]\nversion = "12.4"\n\n[env]\nNCCL_DEBUG = "INFO"\n' >"$WORK/p2/cuda.toml"
  printf '[cuda]\nversion = \n' >"$WORK/broken/cuda.toml"
  printf '[cuda]\nversion = "11.0"\n' >"$WORK/missing/cuda.toml"
  ln -s "$WORK/p1" "$WORK/link"
  : >"$RESULTS"
}

# interactive SHELL ARGS...: runs an interactive shell in a session of its own, with no
# controlling terminal. Under a terminal (a developer's, tmux) job control would make the
# shell that terminal's foreground process group, stopping ctest and the suite around it;
# this way it runs as it does under CI, with or without a terminal.
interactive() { setsid -w "$@"; }

result() {  # result KEY: the last value the shell recorded under KEY
  grep "^$1=" "$RESULTS" | tail -n 1 | cut -d= -f2-
}

count_lines() {  # count_lines FILE TEXT: lines of FILE containing TEXT
  grep -cF -- "$2" "$1" || true
}

# The bash/zsh scenario: typed line by line into an interactive shell, which records
# what it sees with `r KEY VALUE`; a prompt (and so the hook) comes between lines.
posix_scenario() {  # posix_scenario SHELL
  cat <<SCENARIO
PS1=''; PS2=''
r() { printf '%s=%s\n' "\$1" "\$2" >>"$RESULTS"; }
errs() { grep -c "^cudaenv:" "$WORK/err"; }
export LD_LIBRARY_PATH=/user/lib CUDA_HOME=/user/cuda
eval "\$("$CUDAENV" init $1)"
eval "\$("$CUDAENV" init $1)"
r shims_on_path "\$(printf '%s\n' "\$PATH" | tr ':' '\n' | grep -cx "$CUDAENV_ROOT/shims")"
r path_start "\$PATH"
r home_cuda_home "\$CUDA_HOME"
cd "$WORK/p1"
r p1_which "\$(command -v nvcc)"
r p1_nvcc "\$(nvcc --version | grep release)"
r p1_cuda_home "\$CUDA_HOME"
r p1_ld "\$LD_LIBRARY_PATH"
r p1_arch "\$TORCH_CUDA_ARCH_LIST"
_cudaenv_unchanged && r fast_path taken
export PATH="/user/bin:\$PATH" LD_LIBRARY_PATH="/user/lib2:\$LD_LIBRARY_PATH"
r before_sub "\$(errs)"
cd sub
:
:
r after_sub "\$(errs)"
r sub_which "\$(command -v nvcc)"
printf '[cuda]\nversion = "12.4"\n' >cuda.toml
r sub_new_which "\$(command -v nvcc)"
rm cuda.toml
r sub_removed_which "\$(command -v nvcc)"
cd ../inner
r inner_nvcc "\$(nvcc --version | grep release)"
r inner_ld "\$LD_LIBRARY_PATH"
cd -
r back_which "\$(command -v nvcc)"
pushd "$WORK/p1/inner"
r pushd_which "\$(command -v nvcc)"
popd
r popd_which "\$(command -v nvcc)"
false
r status "\$?"
cd "$WORK/link"
r link_which "\$(command -v nvcc)"
cd "\$HOME"
r left_path "\$PATH"
r left_ld "\$LD_LIBRARY_PATH"
r left_cuda_home "\$CUDA_HOME"
r left_arch "\${TORCH_CUDA_ARCH_LIST-unset}"
cd "$WORK/p1"
cudaenv shell 12.4
r shell_which "\$(command -v nvcc)"
r shell_var "\$CUDAENV_VERSION"
r shell_show "\$(cudaenv shell)"
cudaenv shell --unset
r unset_which "\$(command -v nvcc)"
printf '[cuda]\nversion = "12.4"\n' >cuda.toml
r edited_which "\$(command -v nvcc)"
r edited_nvcc "\$(nvcc --version | grep release)"
printf '[cuda]\nversion = "12.1"\narch = ["8.9", "9.0"]\n' >cuda.toml
cd "$WORK/p2"
r untrusted_nccl "\${NCCL_DEBUG-unset}"
:
cudaenv trust
r trusted_nccl "\${NCCL_DEBUG-unset}"
printf '# edited\n' >>cuda.toml
r changed_nccl "\${NCCL_DEBUG-unset}"
:
cd "$WORK/broken"
:
:
r broken_cuda_home "\$CUDA_HOME"
cd "$WORK/missing"
:
:
cd "\$HOME"
export CUDAENV_QUIET=1
r before_quiet "\$(errs)"
cd "$WORK/p1/inner"
r quiet_which "\$(command -v nvcc)"
r after_quiet "\$(errs)"
unset CUDAENV_QUIET
r no_integration "\$("$CUDAENV" shell 12.4 2>&1)"
SCENARIO
}

# The checks every shell must pass. $1 is the file the shell's stderr went to.
check_scenario_results() {
  local err=$1 shims="$CUDAENV_ROOT/shims"
  assert_eq "1" "$(result shims_on_path)" "init twice puts the shims on PATH once"
  assert_eq "$shims:/usr/local/bin:/usr/bin:/bin:$BUILD" "$(result path_start)" "PATH after init: the shims first, cudaenv's own folder last"
  assert_eq "/user/cuda" "$(result home_cuda_home)" "outside a project CUDA_HOME is the user's"

  assert_eq "$TK121/bin/nvcc" "$(result p1_which)" "in p1 the real nvcc comes first (before the shims)"
  assert_contains "$(result p1_nvcc)" "release 12.1, V12.1.105" "nvcc --version in p1"
  assert_eq "$TK121" "$(result p1_cuda_home)" "CUDA_HOME in p1"
  assert_eq "$TK121/lib64:/user/lib" "$(result p1_ld)" "LD_LIBRARY_PATH in p1"
  assert_eq "8.9;9.0" "$(result p1_arch)" "TORCH_CUDA_ARCH_LIST in p1"
  assert_eq "taken" "$(result fast_path)" "an unchanged prompt takes the fast path (no fork)"
  assert_eq "$(result before_sub)" "$(result after_sub)" "a cd within a project and unchanged prompts print nothing"
  assert_eq "$TK121/bin/nvcc" "$(result sub_which)" "a subfolder of p1 keeps 12.1"
  assert_eq "$TK124/bin/nvcc" "$(result sub_new_which)" "a cuda.toml created in the folder takes over at the next prompt"
  assert_eq "$TK121/bin/nvcc" "$(result sub_removed_which)" "and removing it gives p1's back"
  assert_contains "$(result inner_nvcc)" "release 12.4" "a nested project switches"
  assert_eq "$TK124/lib64:/user/lib2:/user/lib" "$(result inner_ld)" "switching keeps the user's LD entry, swaps ours"
  assert_eq "$TK121/bin/nvcc" "$(result back_which)" "cd - goes back to 12.1"
  assert_eq "$TK124/bin/nvcc" "$(result pushd_which)" "pushd into the nested project"
  assert_eq "$TK121/bin/nvcc" "$(result popd_which)" "popd back"
  assert_eq "1" "$(result status)" "the hook keeps the exit status"
  assert_eq "$TK121/bin/nvcc" "$(result link_which)" "a symlinked folder of p1"

  assert_eq "/user/bin:$shims:/usr/local/bin:/usr/bin:/bin:$BUILD" "$(result left_path)" "leaving keeps the user's PATH entry, drops ours"
  assert_eq "/user/lib2:/user/lib" "$(result left_ld)" "leaving keeps the user's LD entry, drops ours"
  assert_eq "/user/cuda" "$(result left_cuda_home)" "leaving gives CUDA_HOME its old value back"
  assert_eq "unset" "$(result left_arch)" "leaving unsets TORCH_CUDA_ARCH_LIST"

  assert_eq "$TK124/bin/nvcc" "$(result shell_which)" "cudaenv shell 12.4 overrides cuda.toml"
  assert_eq "12.4" "$(result shell_var)" "cudaenv shell sets CUDAENV_VERSION"
  assert_eq "12.4" "$(result shell_show)" "cudaenv shell with no argument shows it"
  assert_eq "$TK121/bin/nvcc" "$(result unset_which)" "cudaenv shell --unset goes back to cuda.toml"
  assert_eq "$TK124/bin/nvcc" "$(result edited_which)" "editing cuda.toml while inside applies at the next prompt"
  assert_contains "$(result edited_nvcc)" "release 12.4" "nvcc after the edit"

  assert_eq "unset" "$(result untrusted_nccl)" "[env] is not applied before trust"
  assert_eq "INFO" "$(result trusted_nccl)" "[env] is applied after cudaenv trust"
  assert_eq "unset" "$(result changed_nccl)" "a changed file is untrusted again"
  assert_eq "2" "$(count_lines "$err" "sets [env] (NCCL_DEBUG), not applied: run \`cudaenv trust\`")" \
    "the trust notice shows once per change of the file"

  assert_eq "1" "$(count_lines "$err" "broken/cuda.toml:2:")" "a broken cuda.toml is reported once, not at every prompt"
  assert_eq "1" "$(count_lines "$err" "CUDA 11.0 is not installed")" "a missing version is reported once"
  assert_eq "/user/cuda" "$(result broken_cuda_home)" "a broken cuda.toml applies no toolkit"

  assert_contains "$(cat "$err")" "cudaenv: CUDA 12.1.1 (cuda.toml)" "entering p1 says so"
  assert_contains "$(cat "$err")" "cudaenv: CUDA 12.4.1 (CUDAENV_VERSION)" "cudaenv shell says so"
  assert_eq "$(result before_quiet)" "$(result after_quiet)" "CUDAENV_QUIET=1 silences the toolkit line"
  assert_eq "$TK124/bin/nvcc" "$(result quiet_which)" "CUDAENV_QUIET=1 still switches"
  assert_contains "$(result no_integration)" "needs the shell integration" "cudaenv shell without the integration"
  assert_eq "" "$(grep -E 'not found|^set: |_cudaenv[a-z_]*:[0-9]+:' "$err")" "the integration itself raises no shell errors"
}
