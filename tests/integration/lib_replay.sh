# shellcheck shell=bash
# Helpers for the suites of the shim's records (shim_replay*.sh, src/replay/record.h), sourced
# after lib.sh. The project is $WORK/proj; answers are the program the shim runs (its nvcc
# prints $0).

# light_toolkit VERSION: versions/VERSION under $CUDAENV_ROOT with a bin/nvcc that prints its
# path, made beside it and renamed in, so that a shim running meanwhile sees all or nothing.
light_toolkit() {
  local new="$CUDAENV_ROOT/.new-$1"
  mkdir -p "$new/bin"
  printf '#!/bin/sh\necho "$0"\n' >"$new/bin/nvcc"
  chmod +x "$new/bin/nvcc"
  mv "$new" "$CUDAENV_ROOT/versions/$1"
}

# settle: past the timestamp tick of the last change (20 ms on a file system of nanosecond
# times), before which no record resting on it is written.
settle() { sleep 0.05; }

answer() { (cd "$WORK/proj" && "$CUDAENV_ROOT/shims/nvcc"); }

# RECORDS: the records' folder; records: how many there are.
RECORDS="$CUDAENV_ROOT/cache/shim"
records() { find "$CUDAENV_ROOT/cache/shim" -type f ! -name '.*' 2>/dev/null | wc -l; }
# the_record: the one record there is.
the_record() { find "$CUDAENV_ROOT/cache/shim" -type f ! -name '.*' | head -1; }
# record_whole FILE: a record as the CLI writes it: its header, and its checksum line last.
record_whole() { [ "$(head -n 1 "$1")" = "cudaenv-replay 1" ] && tail -n 1 "$1" | grep -qE '^Z16:[0-9a-f]{16}$'; }

# replayed [FOLDER]: whether the shim, run in FOLDER (default $WORK/proj), ran its program
# without handing over to `cudaenv shim` (strace: no exec of the CLI).
command -v strace >/dev/null || skip "strace is missing (scripts/ensure-apt-packages.sh test installs it)"
replayed() {
  (cd "${1:-$WORK/proj}" && strace -f -qq -e trace=execve -e signal=none -o "$WORK/trace" "$CUDAENV_ROOT/shims/nvcc" >/dev/null 2>&1)
  grep -q 'execve(".*/nvcc"' "$WORK/trace" || { echo "strace saw no exec in $WORK/trace" >&2; return 1; }
  ! grep -q 'execve("[^"]*/\.cudaenv"' "$WORK/trace"
}

temporaries() { find "$@" -name '.*.tmp-*' | wc -l; }

# big_toml VERSION: a cuda.toml of about 100 KB asking for VERSION, the same size for every
# VERSION of one length.
big_toml() {
  printf '[cuda]\nversion = "%s"\n\n[env]\n' "$1"
  awk 'BEGIN { for (i = 0; i < 3000; i++) printf "CACHE_TEST_%05d = \"value %05d\"\n", i, i }'
}

# rewrite_in_place FILE VERSION: FILE rewritten as big_toml VERSION, keeping its inode and size.
rewrite_in_place() { big_toml "$2" | dd of="$1" conv=notrunc status=none; }
