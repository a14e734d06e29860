#!/usr/bin/env bash
# What `cudaenv torch` prints really changes the installed build: the real pip (and uv, where
# installed) in a real venv, against a loopback stand-in of download.pytorch.org/whl holding
# cu121, cu118 and cpu builds of torch 2.1.2. Each printed form, run as printed, replaces an
# installed +cu121 build (which a plain `torch==2.1.2` pin would leave in place).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_torch.sh"

python3 -c 'import venv, ensurepip' 2>/dev/null || skip "python3 with venv and ensurepip is needed"
add_torch_build cu121 2.1.2 0.16.2 2.1.2 12.1
add_torch_build cu118 2.1.2 0.16.2 2.1.2 11.8
add_torch_build cpu 2.1.2 0.16.2 2.1.2 none
start_index
export CUDAENV_TORCH_INDEX="$INDEX_URL/"
VENV="$WORK/venv"
check "make a venv" make_venv "$VENV"

# fresh_cu121: the venv holds the cu121 build of all three, as a user's would
fresh_cu121() {
  "$VENV/bin/pip" install -q torch==2.1.2+cu121 torchvision==0.16.2+cu121 torchaudio==2.1.2+cu121 \
    --index-url "$INDEX_URL/cu121" >"$WORK/pip.log" 2>&1 || cat "$WORK/pip.log" >&2
  assert_eq "2.1.2+cu121 12.1" "$(torch_build "$VENV")" "venv starts with the cu121 build"
}

# in_venv COMMAND...: run as a user with the venv activated would
in_venv() { env VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" "$@"; }

# The plain pin is the trap the local version avoids: pip keeps +cu121.
fresh_cu121
in_venv pip install -q torch==2.1.2 --index-url "$INDEX_URL/cu118" >/dev/null 2>&1
assert_eq "2.1.2+cu121 12.1" "$(torch_build "$VENV")" "a plain ==2.1.2 pin leaves the cu121 build (why local pins)"

# --format command, pip
run_capture "$CUDAENV" torch --cuda 11.8 --torch 2.1.2 --driver 550.54.14
assert_eq "pip install torch==2.1.2+cu118 torchvision==0.16.2+cu118 torchaudio==2.1.2+cu118 --index-url $INDEX_URL/cu118" \
  "$OUT" "the pip command pins local versions against CUDAENV_TORCH_INDEX"
in_venv sh -c "$OUT" >"$WORK/run.log" 2>&1 || cat "$WORK/run.log" >&2
assert_eq "2.1.2+cu118 11.8" "$(torch_build "$VENV")" "the printed pip command installs the cu118 build"
assert_eq "0.16.2+cu118" "$(dist_version "$VENV" torchvision)" "torchvision replaced too"
assert_eq "2.1.2+cu118" "$(dist_version "$VENV" torchaudio)" "torchaudio replaced too"

# --format requirements, pip -r
fresh_cu121
run_capture "$CUDAENV" torch --cuda 11.8 --torch 2.1.2 --driver 550.54.14 --format requirements
printf '%s\n' "$OUT" >"$WORK/requirements.txt"
in_venv pip install -q -r "$WORK/requirements.txt" >"$WORK/run.log" 2>&1 || cat "$WORK/run.log" >&2
assert_eq "2.1.2+cu118 11.8" "$(torch_build "$VENV")" "pip -r on the printed requirements installs the cu118 build"
assert_eq "0.16.2+cu118" "$(dist_version "$VENV" torchvision)" "requirements: torchvision replaced"

# --cpu
fresh_cu121
run_capture "$CUDAENV" torch --cpu --torch 2.1.2
assert_eq "pip install torch==2.1.2+cpu torchvision==0.16.2+cpu torchaudio==2.1.2+cpu --index-url $INDEX_URL/cpu" "$OUT" "cpu pins"
in_venv sh -c "$OUT" >"$WORK/run.log" 2>&1 || cat "$WORK/run.log" >&2
assert_eq "2.1.2+cpu None" "$(torch_build "$VENV")" "the printed --cpu command installs the CPU build"

# test.sh takes uv from PyPI into CUDAENV_TEST_TOOLS where the machine has none.
PATH="$PATH${CUDAENV_TEST_TOOLS:+:$CUDAENV_TEST_TOOLS}"
if ! command -v uv >/dev/null 2>&1; then
  echo "uv not installed: the uv forms (uv pip install, pyproject with uv sync) were not run"
  finish
fi

# --installer uv
fresh_cu121
run_capture "$CUDAENV" torch --cuda 11.8 --torch 2.1.2 --driver 550.54.14 --installer uv
assert_eq "uv pip install torch==2.1.2+cu118 torchvision==0.16.2+cu118 torchaudio==2.1.2+cu118 --index-url $INDEX_URL/cu118" \
  "$OUT" "the uv command"
in_venv sh -c "$OUT" >"$WORK/run.log" 2>&1 || cat "$WORK/run.log" >&2
assert_eq "2.1.2+cu118 11.8" "$(torch_build "$VENV")" "the printed uv command installs the cu118 build"

# --format pyproject: merged into a project, `uv sync` moves its venv from cu121 to cu118.
# The project is locked for Linux only, so the macOS pins (plain versions, from PyPI) are not resolved.
PROJECT="$WORK/project"
mkdir -p "$PROJECT"
write_project() {  # write_project VARIANT_ARGS...: pyproject.toml from cudaenv's fragment
  "$CUDAENV" torch --torch 2.1.2 --driver 550.54.14 --format pyproject "$@" 2>/dev/null |
    sed 's/^\[project\]$/[project]\nname = "demo"\nversion = "0.1.0"\nrequires-python = ">=3.8"/' >"$PROJECT/pyproject.toml"
  printf '\n[tool.uv]\nenvironments = ["sys_platform == '"'linux'"'"]\n' >>"$PROJECT/pyproject.toml"
}
uv_sync() {
  (cd "$PROJECT" && env -u VIRTUAL_ENV UV_DEFAULT_INDEX="http://127.0.0.1:9/no-pypi" uv sync --python "$(command -v python3)") \
    >"$WORK/uv.log" 2>&1 || cat "$WORK/uv.log" >&2
}
write_project --cuda 12.1
uv_sync
assert_eq "2.1.2+cu121 12.1" "$(torch_build "$PROJECT/.venv")" "uv sync of the cu121 fragment"
write_project --cuda 11.8
uv_sync
assert_eq "2.1.2+cu118 11.8" "$(torch_build "$PROJECT/.venv")" "uv sync of the printed cu118 fragment replaces the cu121 build"
assert_eq "0.16.2+cu118" "$(dist_version "$PROJECT/.venv" torchvision)" "pyproject: torchvision replaced"
write_project --cpu
uv_sync
assert_eq "2.1.2+cpu None" "$(torch_build "$PROJECT/.venv")" "uv sync of the --cpu fragment installs the CPU build"

finish
