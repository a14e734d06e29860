# fish driven as an interactive shell on a pseudo-terminal (script(1)): fish only runs
# its prompt and PWD events for a real terminal, so the scenario is typed into one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_shell.sh"
command -v fish >/dev/null || skip "fish is not installed"
command -v script >/dev/null || skip "script (util-linux) is not installed"
setup_projects
value_or_unset() { echo "(set -q $1; and echo \$$1; or echo unset)"; }
cat >"$WORK/scenario" <<SCENARIO
function r; printf '%s=%s\n' \$argv[1] "\$argv[2]" >>"$RESULTS"; end
function errs; grep -c '^cudaenv:' "$WORK/err"; end
set -gx LD_LIBRARY_PATH /user/lib
set -gx CUDA_HOME /user/cuda
"$CUDAENV" init fish | source
"$CUDAENV" init fish | source
r shims_on_path (count (string match -- "$CUDAENV_ROOT/shims" \$PATH))
r path_start (string join : \$PATH)
r home_cuda_home "\$CUDA_HOME"
cd "$WORK/p1"
r p1_which (command -v nvcc)
r p1_nvcc (nvcc --version | grep release)
r p1_cuda_home "\$CUDA_HOME"
r p1_ld "\$LD_LIBRARY_PATH"
r p1_arch "\$TORCH_CUDA_ARCH_LIST"
__cudaenv_unchanged; and r fast_path taken
set -gx PATH /user/bin \$PATH
set -gx LD_LIBRARY_PATH /user/lib2 \$LD_LIBRARY_PATH
r before_sub (errs)
cd sub
true
true
r after_sub (errs)
r sub_which (command -v nvcc)
printf '[cuda]\nversion = "12.4"\n' >cuda.toml
r sub_new_which (command -v nvcc)
rm cuda.toml
r sub_removed_which (command -v nvcc)
cd ../inner
r inner_nvcc (nvcc --version | grep release)
r inner_ld "\$LD_LIBRARY_PATH"
cd -
r back_which (command -v nvcc)
pushd "$WORK/p1/inner"
r pushd_which (command -v nvcc)
popd
r popd_which (command -v nvcc)
false
r status \$status
cd "$WORK/link"
r link_which (command -v nvcc)
cd "\$HOME"
r left_path (string join : \$PATH)
r left_ld "\$LD_LIBRARY_PATH"
r left_cuda_home "\$CUDA_HOME"
r left_arch $(value_or_unset TORCH_CUDA_ARCH_LIST)
cd "$WORK/p1"
cudaenv shell 12.4
r shell_which (command -v nvcc)
r shell_var "\$CUDAENV_VERSION"
r shell_show (cudaenv shell)
cudaenv shell --unset
r unset_which (command -v nvcc)
printf '[cuda]\nversion = "12.4"\n' >cuda.toml
r edited_which (command -v nvcc)
r edited_nvcc (nvcc --version | grep release)
printf '[cuda]\nversion = "12.1"\narch = ["8.9", "9.0"]\n' >cuda.toml
cd "$WORK/p2"
r untrusted_nccl $(value_or_unset NCCL_DEBUG)
true
cudaenv trust
r trusted_nccl $(value_or_unset NCCL_DEBUG)
printf '# edited\n' >>cuda.toml
r changed_nccl $(value_or_unset NCCL_DEBUG)
true
cd "$WORK/broken"
true
true
r broken_cuda_home "\$CUDA_HOME"
cd "$WORK/missing"
true
true
cd "\$HOME"
set -gx CUDAENV_QUIET 1
r before_quiet (errs)
cd "$WORK/p1/inner"
r quiet_which (command -v nvcc)
r after_quiet (errs)
set -e CUDAENV_QUIET
r no_integration ("$CUDAENV" shell 12.4 2>&1)
r done yes
exit
SCENARIO
TERM=dumb timeout 120 script -qec "fish --no-config -i 2>'$WORK/err'" /dev/null <"$WORK/scenario" >"$WORK/out" 2>&1
assert_eq "yes" "$(result done)" "the fish scenario ran to its end"
check_scenario_results "$WORK/err"
finish
