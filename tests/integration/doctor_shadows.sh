# What still slipped through doctor: an nvcc ahead of the shims (the seed: a project pins 12.4
# and /usr/local/cuda-11.8/bin comes first on PATH), CUDA_HOME and CUDA_PATH naming different
# toolkits, a venv carrying NVIDIA's CUDA wheels, cuDNN 9 sub-libraries on LD_LIBRARY_PATH,
# and WSL2 on a stand-in machine (doctor --machine-root: its /proc and /usr/lib/wsl).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_doctor.sh"
command -v jq >/dev/null || skip "jq is needed to read doctor --json"

install_toolkit 12.4.1
install_toolkit 13.0.2
make_fake_toolkit "$WORK/usr-local/cuda-11.8" 11.8.0
OLD_BIN="$WORK/usr-local/cuda-11.8/bin"
use_driver 12040 550.54.14 "NVIDIA GeForce RTX 4090:8.9"
fake_gcc gcc 12.2.0
mkdir -p "$WORK/project" && cd "$WORK/project" || exit 1
"$CUDAENV" use 12.4 >/dev/null 2>&1
SHIMMED_PATH=$PATH

# The seed: /usr/local/cuda-11.8/bin before the shims, CUDA_HOME unset.
export PATH="$OLD_BIN:$SHIMMED_PATH"
doctor
assert_eq 1 "$STATUS" "the seed fails doctor"
assert_eq error "$(severity_of nvcc-path)" "the seed: nvcc on PATH is an error"
assert_contains "$(title_of nvcc-path)" "nvcc on PATH is $OLD_BIN/nvcc (CUDA 11.8), not the selected CUDA 12.4.1's: $OLD_BIN comes before cudaenv's shims on PATH" "the seed: names both"
assert_contains "$(explanation_of nvcc-path)" "A plain \`nvcc\` (make, scripts, your shell) runs $OLD_BIN/nvcc (CUDA 11.8)" "the seed: a plain call"
assert_contains "$(explanation_of nvcc-path)" "torch's extension builds and DeepSpeed's ops run the PATH one too (CUDA_HOME and CUDA_PATH are unset)" "the seed: torch and DeepSpeed"
assert_contains "$(explanation_of nvcc-path)" "CMake runs the PATH one too (CUDACXX is unset)" "the seed: CMake"
assert_contains "$(explanation_of nvcc-path)" "$CUDAENV_ROOT/versions/12.4.1/bin/nvcc" "the seed: the selected toolkit's nvcc"
assert_eq "eval \"\$(cudaenv env)\"" "$(fixes_of nvcc-path | head -n 1)" "the seed: first fix"
assert_eq "export PATH='$SHIMMED_PATH'" "$(fixes_of nvcc-path | sed -n 2p)" "the seed: PATH without the old toolkit"
assert_not_contains "$(jq -r '.findings[] | select(.severity == "ok") | .title' <<<"$JSON")" "nvcc on PATH" "the seed: no passed nvcc check"
# The fix works: with the environment cudaenv prints, doctor passes the nvcc check.
eval "$("$CUDAENV" env)"
doctor
assert_eq ok "$(severity_of nvcc-path)" "after eval \"\$(cudaenv env)\": nvcc agrees"
unset CUDA_HOME CUDA_PATH CUDAToolkit_ROOT CUDACXX
# Each tool named with what it runs: CUDA_HOME at 12.4 and CUDACXX set, PATH still 11.8.
export PATH="$OLD_BIN:$SHIMMED_PATH" CUDA_HOME="$CUDAENV_ROOT/versions/12.4.1" CUDACXX=/opt/nvcc
doctor
assert_contains "$(explanation_of nvcc-path)" "run \$CUDA_HOME/bin/nvcc, $CUDAENV_ROOT/versions/12.4.1/bin/nvcc (CUDA 12.4)" "torch: \$CUDA_HOME's"
assert_contains "$(explanation_of nvcc-path)" "CMake runs \$CUDACXX, /opt/nvcc" "CMake: \$CUDACXX"
unset CUDA_HOME CUDACXX
# Without the shims on PATH at all (an IDE): said so.
export PATH="$OLD_BIN:$FAKE_BIN:/usr/bin:/bin"
doctor
assert_contains "$(title_of nvcc-path)" "cudaenv's shims are not on PATH" "no shims: said"
export PATH=$SHIMMED_PATH
doctor
assert_eq ok "$(severity_of nvcc-path)" "shims first: ok"

# CUDA_HOME and CUDA_PATH naming different toolkits.
export CUDA_HOME="$CUDAENV_ROOT/versions/12.4.1" CUDA_PATH="$WORK/usr-local/cuda-11.8"
doctor
assert_eq warning "$(severity_of cuda-home-path)" "CUDA_HOME != CUDA_PATH: warned"
assert_contains "$(title_of cuda-home-path)" "CUDA_HOME=$CUDAENV_ROOT/versions/12.4.1 (CUDA 12.4) and CUDA_PATH=$WORK/usr-local/cuda-11.8 (CUDA 11.8) name different toolkits" "both named"
assert_contains "$(explanation_of cuda-home-path)" "CuPy takes CUDA_PATH" "who reads which"
assert_contains "$(fixes_of cuda-home-path)" 'export CUDA_PATH="$CUDA_HOME"' "the fix"
ln -s "$CUDAENV_ROOT/versions/12.4.1" "$WORK/same-12.4"
export CUDA_PATH="$WORK/same-12.4/"
doctor
assert_eq "" "$(severity_of cuda-home-path)" "the same toolkit by another path: nothing"
unset CUDA_HOME CUDA_PATH

# A venv with NVIDIA's CUDA 13 wheels: cuda.pathfinder's nvcc and libraries.
"$CUDAENV" use 13.0 >/dev/null 2>&1
use_driver 13000 580.65.06 "NVIDIA GeForce RTX 4090:8.9"
make_fake_toolkit "$WORK/wheel-nvcc" 13.2.1
mkdir -p "$FAKE_PY/nvidia/cu13/bin" "$FAKE_PY/nvidia/cu13/lib"
cp "$WORK/wheel-nvcc/bin/nvcc" "$FAKE_PY/nvidia/cu13/bin/nvcc"
: >"$FAKE_PY/nvidia/cu13/lib/libcudart.so.13"
doctor
assert_eq warning "$(severity_of cuda-wheels)" "wheels' nvcc 13.2 against toolkit 13.0: warned"
assert_contains "$(title_of cuda-wheels)" "NVIDIA's CUDA wheels for $PYTHON carry nvcc 13.2, but builds use nvcc 13.0" "the wheels' nvcc and the build's"
assert_contains "$(explanation_of cuda-wheels)" "here $FAKE_PY/nvidia/cu13/bin/nvcc (CUDA 13.2)" "which nvcc pathfinder finds"
assert_contains "$(explanation_of cuda-wheels)" "from $FAKE_PY/nvidia/cu13/lib before LD_LIBRARY_PATH" "which libraries it loads"
assert_contains "$(fixes_of cuda-wheels)" "cudaenv install 13.2 && cudaenv use 13.2" "fix: the wheels' CUDA"
assert_contains "$(fixes_of cuda-wheels)" "-m pip install 'nvidia-cuda-nvcc==13.0.*'" "fix: the toolkit's nvcc wheel"
assert_eq "$FAKE_PY/nvidia/cu13/bin/nvcc" "$(probe .probes.cuda_wheels.nvcc)" "--json: the wheels' nvcc"
make_fake_toolkit "$WORK/wheel-nvcc" 13.0.1
cp "$WORK/wheel-nvcc/bin/nvcc" "$FAKE_PY/nvidia/cu13/bin/nvcc"
doctor
assert_eq ok "$(severity_of cuda-wheels)" "same CUDA: ok"
rm -rf "$FAKE_PY/nvidia/cu13/bin"
doctor
assert_eq "" "$(severity_of cuda-wheels)" "library wheels alone (torch's): nothing to say"

# cuDNN 9 sub-libraries on LD_LIBRARY_PATH against torch's cuDNN.
fake_torch_cudnn() {  # fake_torch_cudnn NUMBER: torch 2.15 (cu130) whose cuDNN says NUMBER
  fake_torch 2.15.0+cu130 13.0 "sm_89"
  mkdir -p "$FAKE_PY/torch/backends/cudnn"
  echo 'from . import cudnn' >"$FAKE_PY/torch/backends/__init__.py"
  printf 'def version():\n    return %s\n' "$1" >"$FAKE_PY/torch/backends/cudnn/__init__.py"
  echo 'from . import backends' >>"$FAKE_PY/torch/__init__.py"
}
LIB="$CUDAENV_ROOT/versions/13.0.2/lib"
for part in graph ops cnn; do
  : >"$LIB/libcudnn_$part.so.9.1.0"
  ln -sf "libcudnn_$part.so.9.1.0" "$LIB/libcudnn_$part.so.9"
done
fake_torch_cudnn 91002
export LD_LIBRARY_PATH="$FAKE_DRIVER_DIR:$CUDAENV_ROOT/versions/13.0.2/lib64"
doctor
assert_eq warning "$(severity_of ld-library-path-cudnn)" "cuDNN 9.1.0 sub-libraries vs torch's 9.10.2: warned"
assert_contains "$(title_of ld-library-path-cudnn)" "cuDNN 9.1.0 in $CUDAENV_ROOT/versions/13.0.2/lib64 vs torch's cuDNN 9.10.2" "the pair"
assert_contains "$(explanation_of ld-library-path-cudnn)" "torch preloads its own cuDNN (libcudnn.so.9), cuBLAS and NCCL from its wheels" "what does not happen"
assert_contains "$(explanation_of ld-library-path-cudnn)" "opens its sub-libraries (libcudnn_graph.so.9" "what does"
assert_eq "cudaenv install 13.0.2 --library cudnn@9.10" "$(fixes_of ld-library-path-cudnn | head -n 1)" "fix: torch's cuDNN into the selected toolkit"
assert_eq "export LD_LIBRARY_PATH='$FAKE_DRIVER_DIR'" "$(fixes_of ld-library-path-cudnn | sed -n 2p)" "fix: without the entry"
fake_torch_cudnn 90100
doctor
assert_eq ok "$(severity_of ld-library-path-cudnn)" "same cuDNN: ok"
fake_torch_cudnn 8907
doctor
assert_eq "" "$(severity_of ld-library-path-cudnn)" "torch's cuDNN 8: does not apply"
export LD_LIBRARY_PATH="$FAKE_DRIVER_DIR"
fake_torch_cudnn 91002
doctor
assert_eq "" "$(severity_of ld-library-path-cudnn)" "no sub-libraries on LD_LIBRARY_PATH: does not apply"
no_python_packages

# WSL2 on a stand-in machine: the Windows driver's libraries in /usr/lib/wsl/lib, no /proc/driver/nvidia.
MACHINE="$WORK/wsl-machine"
WSL_LIB="$MACHINE/usr/lib/wsl/lib"
mkdir -p "$MACHINE/proc/sys/kernel" "$WSL_LIB" "$MACHINE/usr/lib/x86_64-linux-gnu" "$MACHINE/usr/bin"
echo "5.15.153.1-microsoft-standard-WSL2" >"$MACHINE/proc/sys/kernel/osrelease"
cp -L "$FAKE_DRIVER_DIR/libcuda.so.1" "$FAKE_DRIVER_DIR/libnvidia-ml.so.1" "$WSL_LIB/"
printf '#!/bin/sh\necho nvidia-smi\n' >"$WSL_LIB/nvidia-smi"
chmod +x "$WSL_LIB/nvidia-smi"
wsl_doctor() { doctor --machine-root "$MACHINE"; }
use_driver 13000 580.65.06 "NVIDIA GeForce RTX 4090:8.9"
export LD_LIBRARY_PATH="$WSL_LIB"
wsl_doctor
assert_eq ok "$(severity_of wsl)" "WSL2 with the Windows driver: ok"
assert_contains "$(title_of wsl)" "libcuda.so.1 is the Windows driver's ($WSL_LIB/libcuda.so.1)" "WSL2: where libcuda came from"
assert_eq ok "$(severity_of driver)" "WSL2: the driver answers without /proc/driver/nvidia"
assert_eq info "$(severity_of wsl-nvidia-smi)" "WSL2: nvidia-smi off PATH is a note"
assert_contains "$(fixes_of wsl-nvidia-smi)" "export PATH=\"\$PATH\":'$WSL_LIB'" "WSL2: how to reach nvidia-smi"
# The well-known mistake: a Linux NVIDIA driver installed inside WSL.
cp -L "$FAKE_DRIVER_DIR/libcuda.so.1" "$MACHINE/usr/lib/x86_64-linux-gnu/"
cp "$WSL_LIB/nvidia-smi" "$MACHINE/usr/bin/nvidia-smi"
export LD_LIBRARY_PATH="$MACHINE/usr/lib/x86_64-linux-gnu:$WSL_LIB" PATH="$MACHINE/usr/bin:$PATH"
wsl_doctor
assert_eq error "$(severity_of wsl)" "a Linux driver inside WSL: an error"
assert_contains "$(title_of wsl)" "WSL2 loads libcuda.so.1 from $MACHINE/usr/lib/x86_64-linux-gnu/libcuda.so.1, a Linux NVIDIA driver's" "names the Linux driver's library"
assert_contains "$(fixes_of wsl)" "sudo apt-get remove --purge \"\$(dpkg -S '$MACHINE/usr/lib/x86_64-linux-gnu/libcuda.so.1' | cut -d: -f1)\"" "the fix removes its package"
assert_eq warning "$(severity_of wsl-nvidia-smi)" "a Linux driver's nvidia-smi: warned"
export PATH=$SHIMMED_PATH
# No usable libcuda: the Windows driver's is missing, or there but not found by the loader.
no_driver
wsl_doctor
assert_eq error "$(severity_of wsl)" "WSL2, libcuda not loaded: an error"
assert_contains "$(title_of wsl)" "$WSL_LIB/libcuda.so.1 is there, but the loader does not find it" "the Windows driver's library is there"
assert_contains "$(fixes_of wsl)" "sudo tee /etc/ld.so.conf.d/ld.wsl.conf" "the loader's fix"
rm "$WSL_LIB/libcuda.so.1"
wsl_doctor
assert_contains "$(title_of wsl)" "WSL2 without the Windows driver's libraries: $WSL_LIB/libcuda.so.1 is missing" "no Windows driver"
# Not WSL: nothing said about it.
doctor
assert_eq "" "$(severity_of wsl)" "a Linux machine: no WSL finding"
assert_eq false "$(probe .probes.wsl.wsl)" "--json: not WSL"
finish
