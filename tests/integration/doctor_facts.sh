# cudaenv doctor's facts as upstream has them: CUDA 13.3-13.5 rows, sm_88 in 13.0, a CUDA
# with no facts said so, torch's own host-compiler bounds per torch release, and the
# TORCH_CUDA_ARCH_LIST entries torch rejects.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_doctor.sh"

for version in 11.8 12.8 13.0 13.3 13.4 13.6; do install_toolkit "$version"; done

# 13.0 builds sm_88 (nvcc 13.0 --list-gpu-arch lists compute_88); 13.4 adds sm_107.
"$CUDAENV" global 13.0 >/dev/null 2>&1
fake_gcc gcc 14.2.0
use_driver 13040 600.10 "NVIDIA sm_88 GPU:8.8"
doctor
assert_eq ok "$(severity_of gpu-toolkit)" "13.0 builds for 8.8"
use_driver 13040 600.10 "NVIDIA Rubin:10.7"
"$CUDAENV" global 13.4 >/dev/null 2>&1
doctor
assert_eq ok "$(severity_of gpu-toolkit)" "13.4 builds for 10.7"
"$CUDAENV" global 13.3 >/dev/null 2>&1
doctor
assert_eq error "$(severity_of gpu-toolkit)" "13.3 cannot target 10.7"
assert_contains "$(explanation_of gpu-toolkit)" "CUDA first supports it in 13.4" "13.3 + 10.7: names 13.4"
assert_contains "$(explanation_of gpu-toolkit)" "Code built for sm_103 runs on it" "13.3 + 10.7: the older minor runs"

# Host compiler bounds of 13.3 and 13.4: gcc 16 only from 13.4.
fake_gcc gcc 16.1.0
doctor
assert_eq error "$(severity_of host-compiler)" "gcc 16 + 13.3: refused"
assert_contains "$(explanation_of host-compiler)" "gcc versions later than 15 are not supported" "gcc 16 + 13.3: nvcc's words"
assert_contains "$(fixes_of host-compiler)" "cudaenv use 13.4" "gcc 16 + 13.3: 13.4 takes it"
"$CUDAENV" global 13.4 >/dev/null 2>&1
doctor
assert_eq ok "$(severity_of host-compiler)" "gcc 16 + 13.4: accepted"

# A CUDA cudaenv has no facts for: said, not skipped silently, and not a passed check.
"$CUDAENV" global 13.6 >/dev/null 2>&1
doctor
assert_eq info "$(severity_of facts)" "13.6: no facts is a note"
assert_contains "$(title_of facts)" "no facts for CUDA 13.6: these checks were skipped" "13.6: says which"
assert_eq "" "$(severity_of gpu-toolkit)" "13.6: no GPU verdict made up"
assert_eq info "$(severity_of host-compiler)" "13.6: compiler not checked, not passed"
assert_contains "$(title_of host-compiler)" "no gcc bound known for CUDA 13.6, not checked" "13.6: compiler note"

# torch's own gcc bounds depend on the torch release: 2.10 has none for 12.x and only warns,
# 2.11 (pytorch#168237) bounds 12.8 at gcc 13, later releases (pytorch#173366) at gcc 14.
"$CUDAENV" global 12.8 >/dev/null 2>&1
use_driver 12080 570.86.10 "NVIDIA H100:9.0"
fake_gcc gcc 14.2.0
fake_torch 2.10.0+cu128 12.8 "sm_90"
doctor
assert_eq ok "$(severity_of host-compiler)" "gcc 14 + 12.8 + torch 2.10: accepted"
fake_torch 2.11.0+cu128 12.8 "sm_90"
doctor
assert_eq warning "$(severity_of host-compiler)" "gcc 14 + 12.8 + torch 2.11: torch refuses"
assert_contains "$(title_of host-compiler)" "torch 2.11.0+cu128 refuses gcc 14.2.0" "torch 2.11: title"
assert_contains "$(explanation_of host-compiler)" "load() does not check" "torch 2.11: JIT builds are not checked"
assert_contains "$(fixes_of host-compiler)" "export TORCH_DONT_CHECK_COMPILER_ABI=1" "torch 2.11: the switch torch reads"
fake_gcc gcc-13 13.3.0
doctor
assert_eq "cudaenv use --host-compiler gcc-13" "$(fixes_of host-compiler | head -n 1)" "torch 2.11: gcc-13 on PATH offered"
fake_torch 2.12.0+cu128 12.8 "sm_90"
doctor
assert_eq ok "$(severity_of host-compiler)" "gcc 14 + 12.8 + torch 2.12: accepted"
# nvcc 11.8 refuses gcc 13; torch 2.4 has no bounds for 11.8 and only warns: said as such.
"$CUDAENV" global 11.8 >/dev/null 2>&1
fake_gcc gcc 13.2.0
fake_torch 2.4.0+cu118 11.8 "sm_90"
doctor
assert_eq error "$(severity_of host-compiler)" "gcc 13 + 11.8: nvcc refuses"
assert_contains "$(explanation_of host-compiler)" "torch 2.4.0+cu118's BuildExtension has no gcc bounds for CUDA 11.8 and only warns" "gcc 13 + 11.8: what torch does"
# The major mismatch message says which torch path raises it.
fake_torch 2.4.0+cu124 12.4 "sm_90"
doctor
assert_contains "$(explanation_of toolkit-torch)" "torch's BuildExtension (setup.py and pip builds of CUDA extensions) raises RuntimeError" "major mismatch: BuildExtension"
assert_contains "$(explanation_of toolkit-torch)" "torch.utils.cpp_extension.load() compares nothing" "major mismatch: not load()"

# TORCH_CUDA_ARCH_LIST entries nvcc builds but torch rejects (ValueError "Unknown CUDA arch").
"$CUDAENV" global 13.0 >/dev/null 2>&1
fake_gcc gcc 14.2.0
fake_torch 2.9.0+cu130 13.0 "sm_90"
use_driver 13000 580.65.06 "NVIDIA H100:9.0"
TORCH_CUDA_ARCH_LIST="9.0;10.0f;8.8" doctor
assert_eq error "$(severity_of arch-list)" "torch-rejected archs: an error with torch installed"
assert_contains "$(title_of arch-list)" "torch 2.9.0+cu130 rejects 10.0f, 8.8 named in TORCH_CUDA_ARCH_LIST" "torch-rejected archs: named"
assert_contains "$(explanation_of arch-list)" "Unknown CUDA arch (10.0f) or GPU not supported" "torch-rejected archs: torch's words"
assert_eq "export TORCH_CUDA_ARCH_LIST='9.0'" "$(fixes_of arch-list)" "torch-rejected archs: fix keeps the rest"
TORCH_CUDA_ARCH_LIST="9.0a;10.0a+PTX;Blackwell" doctor
assert_eq ok "$(severity_of arch-list)" "archs torch knows pass"
TORCH_CUDA_ARCH_LIST=native doctor
assert_eq info "$(severity_of arch-list)" "native: a note, the GPU checks judge it"
use_driver 13000 580.65.06 "NVIDIA Rubin:10.7"
TORCH_CUDA_ARCH_LIST=native doctor
assert_eq error "$(severity_of gpu-toolkit)" "native: builds for the GPU's own arch, which 13.0 cannot target"
use_driver 13000 580.65.06 "NVIDIA H100:9.0"
no_python_packages
TORCH_CUDA_ARCH_LIST="9.0;10.0f" doctor
assert_eq warning "$(severity_of arch-list)" "torch-rejected archs without torch: a warning"

finish
