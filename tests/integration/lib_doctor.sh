# Stand-ins for `cudaenv doctor` tests: the fake driver library, fake torch/DeepSpeed
# packages, a fake gcc, and helpers that read doctor's --json answer. Source after lib.sh.

FAKE_DRIVER_DIR="$BUILD/tests/fake_driver"
[ -e "$FAKE_DRIVER_DIR/libcuda.so.1" ] || { echo "build the fake_cuda target first" >&2; exit 1; }
FAKE_BIN="$WORK/fakebin"
FAKE_PY="$WORK/site"
mkdir -p "$FAKE_BIN" "$FAKE_PY"
export PATH="$CUDAENV_ROOT/shims:$FAKE_BIN:$PATH" PYTHONPATH="$FAKE_PY"
unset CC CXX NVCC_CCBIN DS_SKIP_CUDA_CHECK
PYTHON=$(command -v python3)

# use_driver CUDA_NUMBER DRIVER_VERSION [GPUS]: the fake driver, e.g. 12040 550.54.14 "NVIDIA H100:9.0"
use_driver() {
  export LD_LIBRARY_PATH="$FAKE_DRIVER_DIR" FAKE_CUDA_DRIVER_VERSION=$1 FAKE_NVIDIA_DRIVER_VERSION=$2
  export FAKE_CUDA_GPUS="${3:-}"
}

no_driver() { unset LD_LIBRARY_PATH FAKE_CUDA_DRIVER_VERSION FAKE_NVIDIA_DRIVER_VERSION FAKE_CUDA_GPUS; }

# install_toolkit VERSION: a fake toolkit under CUDAENV_ROOT, with shims
install_toolkit() {
  make_fake_toolkit "$CUDAENV_ROOT/versions/$1" "$1"
  "$CUDAENV" rehash >/dev/null 2>&1
}

# fake_torch VERSION CUDA|none "ARCH ..." : a torch package answering like the real one
fake_torch() {
  local cuda="'$2'"
  [ "$2" = none ] && cuda=None
  rm -rf "$FAKE_PY/torch"
  mkdir -p "$FAKE_PY/torch/cuda"
  printf '__version__ = "%s"\nfrom . import version, cuda\n' "$1" >"$FAKE_PY/torch/__init__.py"
  printf 'cuda = %s\n' "$cuda" >"$FAKE_PY/torch/version.py"
  local archs=""
  for arch in $3; do archs="$archs'$arch', "; done
  printf 'def is_available():\n    return False\n\ndef get_arch_list():\n    return [%s]\n' "$archs" \
    >"$FAKE_PY/torch/cuda/__init__.py"
}

# fake_deepspeed VERSION [pip]: a deepspeed package; "pip" adds the dist-info pip writes and
# makes importing it fail, so the version can only come from the dist-info
fake_deepspeed() {
  rm -rf "$FAKE_PY"/deepspeed*
  mkdir -p "$FAKE_PY/deepspeed"
  if [ "${2:-}" = pip ]; then
    mkdir -p "$FAKE_PY/deepspeed-$1.dist-info"
    printf 'Metadata-Version: 2.1\nName: deepspeed\nVersion: %s\n' "$1" >"$FAKE_PY/deepspeed-$1.dist-info/METADATA"
    echo 'raise ImportError("doctor must not import deepspeed")' >"$FAKE_PY/deepspeed/__init__.py"
  else
    printf '__version__ = "%s"\n' "$1" >"$FAKE_PY/deepspeed/__init__.py"
  fi
}

no_python_packages() { rm -rf "$FAKE_PY"/torch "$FAKE_PY"/deepspeed*; }

# fake_gcc NAME VERSION: NAME on PATH printing that gcc's real --version banner
fake_gcc() {
  cat >"$FAKE_BIN/$1" <<GCC
#!/bin/sh
case "\$1" in
  -dumpversion) echo "${2%%.*}" ;;
  *) printf 'gcc (Ubuntu $2-1ubuntu1~24.04) $2\nCopyright (C) 2023 Free Software Foundation, Inc.\nThis is free software; see the source for copying conditions.  There is NO\nwarranty; not even for MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.\n\n' ;;
esac
GCC
  chmod +x "$FAKE_BIN/$1"
}

# doctor ARGS...: runs `cudaenv doctor --json`, keeping the answer in $JSON and the status in $STATUS
doctor() {
  run_capture "$CUDAENV" doctor --json --python "$PYTHON" "$@"
  JSON=$OUT
}

# severity_of ID: the severities of the findings with that id, space separated
severity_of() { jq -r --arg id "$1" '[.findings[] | select(.id == $id) | .severity] | join(" ")' <<<"$JSON"; }
title_of() { jq -r --arg id "$1" '[.findings[] | select(.id == $id) | .title] | join("\n")' <<<"$JSON"; }
fixes_of() { jq -r --arg id "$1" '[.findings[] | select(.id == $id) | .fixes[]] | join("\n")' <<<"$JSON"; }
explanation_of() { jq -r --arg id "$1" '[.findings[] | select(.id == $id) | .explanation] | join("\n")' <<<"$JSON"; }
probe() { jq -r "$1" <<<"$JSON"; }
# count SEVERITY: how many findings have it
count() { jq --arg s "$1" '[.findings[] | select(.severity == $s)] | length' <<<"$JSON"; }
