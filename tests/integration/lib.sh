# Shared helpers for the integration suites. Each suite sources this file, gets a fresh
# temporary HOME and CUDAENV_ROOT (never the real ones) and calls `finish` at the end.
set -u

BUILD=${CUDAENV_BUILD_DIR:?run through ctest, which sets CUDAENV_BUILD_DIR}
SRC=${CUDAENV_SOURCE_DIR:?run through ctest, which sets CUDAENV_SOURCE_DIR}
CUDAENV="$BUILD/cudaenv"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cudaenv-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home" CUDAENV_ROOT="$WORK/root" NO_COLOR=1
# `cudaenv torch` reads the PyTorch index only in the suites that serve one (they unset this).
export CUDAENV_TORCH_OFFLINE=1
unset CUDAENV_VERSION CUDAENV_SHARED_ROOT CUDAENV_SYSTEM_ROOT CUDA_HOME CUDA_PATH CUDAToolkit_ROOT CUDACXX LD_LIBRARY_PATH \
  TORCH_CUDA_ARCH_LIST CUDAARCHS CUDAENV_MIRROR CUDAENV_TORCH_INDEX CUDAENV_SOURCE CUDAENV_EXTENSION_WHEELS
# A PATH with no CUDA on it, so "system" is only what a test puts there.
export PATH="/usr/local/bin:/usr/bin:/bin"
mkdir -p "$HOME"
cd "$WORK" || exit 1

FAILURES=0
CHECKS=0

# The test script's file:line that failed: the first caller outside the lib*.sh helpers.
failed_at() {
  local frame=1 info file
  while info=$(caller "$frame"); do
    file=${info##* }
    case "${file##*/}" in
      lib*.sh) frame=$((frame + 1)) ;;
      *) echo "${file##*/}:${info%% *}"; return ;;
    esac
  done
  echo "?"
}

fail() {
  echo "FAIL ($(failed_at)): $*" >&2
  FAILURES=$((FAILURES + 1))
}

# wait_until SECONDS COMMAND...: runs COMMAND every 0.05 s until it succeeds (status 0) or
# SECONDS have passed (status 1): for servers and background commands a test has started.
wait_until() {
  local tries=$(($1 * 20))
  shift
  while ! "$@" 2>/dev/null; do
    tries=$((tries - 1))
    [ "$tries" -gt 0 ] || return 1
    sleep 0.05
  done
}

check() {  # check DESCRIPTION COMMAND...: the command must succeed
  local what=$1
  shift
  CHECKS=$((CHECKS + 1))
  "$@" || fail "$what"
}

assert_eq() {  # assert_eq EXPECTED ACTUAL DESCRIPTION
  CHECKS=$((CHECKS + 1))
  [ "$1" = "$2" ] || fail "$3: expected [$1], got [$2]"
}

assert_contains() {  # assert_contains HAYSTACK NEEDLE DESCRIPTION
  CHECKS=$((CHECKS + 1))
  case "$1" in
    *"$2"*) ;;
    *) fail "$3: [$2] not in [$1]" ;;
  esac
}

assert_not_contains() {
  CHECKS=$((CHECKS + 1))
  case "$1" in
    *"$2"*) fail "$3: [$2] unexpectedly in [$1]" ;;
  esac
}

# run_capture CMD...: sets OUT, ERR and STATUS.
run_capture() {
  OUT=$("$@" 2>"$WORK/.stderr")
  STATUS=$?
  ERR=$(cat "$WORK/.stderr")
}

nvcc_release_of() {  # 12.1.1 -> the nvcc build number NVIDIA shipped with it
  case "$1" in
    11.8*) echo 89 ;;
    12.1*) echo 105 ;;
    12.4*) echo 131 ;;
    *) echo 42 ;;
  esac
}

# make_fake_toolkit DIR VERSION: a folder shaped like a CUDA_HOME whose bin/nvcc prints
# the real banner of that release, and with "--cudaenv-probe" the variables it got.
make_fake_toolkit() {
  local dir=$1 version=$2
  local major_minor=${version%.*}
  [ "${version//[^.]/}" = "." ] && major_minor=$version
  local major=${version%%.*} minor=${major_minor#*.}
  mkdir -p "$dir/bin" "$dir/lib" "$dir/include"
  ln -sfn lib "$dir/lib64"
  printf '{\n  "cuda": {"name": "CUDA SDK", "version": "%s"}\n}\n' "$version" >"$dir/version.json"
  printf '#define CUDA_VERSION %d\n' $((major * 1000 + minor * 10)) >"$dir/include/cuda.h"
  cat >"$dir/bin/nvcc" <<NVCC
#!/bin/sh
if [ "\${1:-}" = "--cudaenv-probe" ]; then
  echo "nvcc=\$0 CUDA_HOME=\${CUDA_HOME:-} LD_LIBRARY_PATH=\${LD_LIBRARY_PATH:-}"
  exit 0
fi
if [ "\${1:-}" = "--exit" ]; then exit "\$2"; fi
cat <<'BANNER'
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2024 NVIDIA Corporation
Built on Tue_Feb_27_16:19:38_PST_2024
Cuda compilation tools, release $major_minor, V$major_minor.$(nvcc_release_of "$version")
Build cuda_$major_minor.r$major_minor/compiler.33961263_0
BANNER
NVCC
  chmod +x "$dir/bin/nvcc"
  printf '#!/bin/sh\necho "ptxas fake %s"\n' "$version" >"$dir/bin/ptxas"
  chmod +x "$dir/bin/ptxas"
}

finish() {
  if [ "$FAILURES" -gt 0 ]; then
    echo "$FAILURES of $CHECKS checks failed" >&2
    exit 1
  fi
  if [ "$CHECKS" -eq 0 ]; then
    echo "no checks ran" >&2
    exit 1
  fi
  echo "$CHECKS checks passed"
  exit 0
}

skip() {
  echo "SKIPPED: $*"
  exit 77
}

# The opt-in suites in tests/e2e call this first: they reach PyPI and download several GB, so
# they run only with CUDAENV_E2E=1 and keep downloads in E2E_CACHE, outside the repository.
require_e2e() {
  E2E_CACHE=${CUDAENV_E2E_CACHE:-/var/cache/cudaenv-e2e}
  [ "${CUDAENV_E2E:-}" = 1 ] ||
    skip "opt-in suite (PyPI, several GB): run with CUDAENV_E2E=1; downloads are kept in $E2E_CACHE (CUDAENV_E2E_CACHE)"
  mkdir -p "$E2E_CACHE" 2>/dev/null && [ -w "$E2E_CACHE" ] ||
    skip "the e2e cache folder $E2E_CACHE is not writable: set CUDAENV_E2E_CACHE to one that is"
}
