# Helpers for the suites that run the real pip (and uv) against a stand-in PyTorch index: small
# real wheels (tests/support/torch_wheel_index.py) served by a loopback http.server. Source after lib.sh.

INDEX_ROOT="$WORK/whl"
INDEX_LOG="$WORK/index.log"
INDEX_PID=
mkdir -p "$INDEX_ROOT"
trap 'stop_index; rm -rf "$WORK"' EXIT
# pip and uv see only the loopback index: no config, no cache, no local wheel folders.
export PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL UV_INDEX_URL UV_EXTRA_INDEX_URL UV_INDEX UV_DEFAULT_INDEX
export UV_NO_CONFIG=1 UV_CACHE_DIR="$WORK/uv-cache" UV_PYTHON_DOWNLOADS=never

# add_wheel VARIANT PACKAGE VERSION [CUDA|TORCH] [--no-metadata]: see torch_wheel_index.py
add_wheel() { python3 "$SRC/tests/support/torch_wheel_index.py" "$INDEX_ROOT" "$@"; }

# add_torch_build VARIANT TORCH VISION AUDIO CUDA: torch and its torchvision/torchaudio (AUDIO "-": none)
add_torch_build() {
  add_wheel "$1" torch "$2" "$5"
  add_wheel "$1" torchvision "$3" "$2"
  [ "$4" = - ] || add_wheel "$1" torchaudio "$4" "$2"
}

start_index() {
  : >"$INDEX_LOG"
  python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$INDEX_ROOT" >"$WORK/index.out" 2>>"$INDEX_LOG" &
  INDEX_PID=$!
  wait_until 10 grep -q 'port [0-9]' "$WORK/index.out"
  INDEX_URL="http://127.0.0.1:$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$WORK/index.out" | head -1)"
}

stop_index() {
  [ -n "$INDEX_PID" ] && kill "$INDEX_PID" 2>/dev/null
  INDEX_PID=
}

# index_requests PATH_PREFIX: how many requests the index has had for paths starting with it
index_requests() { grep -c "\"GET $1" "$INDEX_LOG"; }

# make_venv DIR: a real venv (pip from the interpreter's own bundle, no network)
make_venv() { python3 -m venv "$1" >/dev/null 2>&1; }

# torch_build VENV: "version cuda" of the torch installed there ("-" when none)
torch_build() {
  "$1/bin/python" -c 'import torch; print(torch.__version__, torch.version.cuda)' 2>/dev/null || echo -
}

# dist_version VENV NAME: the installed version of a distribution ("-" when none)
dist_version() {
  "$1/bin/python" -c 'import sys, importlib.metadata as m; print(m.version(sys.argv[1]))' "$2" 2>/dev/null || echo -
}
