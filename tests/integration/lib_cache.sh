# shellcheck shell=bash
# Helpers for the suites of the lean resolver's caches (shim_cache*.sh), sourced after lib.sh.
# The project is $WORK/proj; answers are the program the shim runs (its nvcc prints $0).

# light_toolkit VERSION: versions/VERSION under $CUDAENV_ROOT with a bin/nvcc that prints its
# path, made beside it and renamed in, so that a shim running meanwhile sees all or nothing.
light_toolkit() {
  local new="$CUDAENV_ROOT/.new-$1"
  mkdir -p "$new/bin"
  printf '#!/bin/sh\necho "$0"\n' >"$new/bin/nvcc"
  chmod +x "$new/bin/nvcc"
  mv "$new" "$CUDAENV_ROOT/versions/$1"
}

# index_whole FILE: its header's body size is what follows the header.
index_whole() {
  local header
  header=$(head -n 1 "$1")
  case "$header" in cudaenv-versions-index-1\ *) ;; *) return 1 ;; esac
  [ "$(($(stat -c %s "$1") - ${#header} - 1))" = "$(echo "$header" | cut -d' ' -f11)" ]
}

# settle: past the timestamp tick of the last change (at most 10 ms on Linux's clock; file
# systems of 1-second timestamps need more), before which no cache of it is written.
settle() { sleep 0.1; }

answer() { (cd "$WORK/proj" && "$CUDAENV_ROOT/shims/nvcc"); }

# listings DIR: how often the shim's answer opened DIR as a folder (strace).
listings() {
  (cd "$WORK/proj" && strace -f -e trace=openat,open -o "$WORK/trace" "$CUDAENV_ROOT/shims/nvcc" >/dev/null 2>&1)
  grep -c "\"$1\".*O_DIRECTORY" "$WORK/trace"
}

temporaries() { find "$@" -name '.*.tmp-*' | wc -l; }
toml_caches() { find "$CUDAENV_ROOT/cache" -name 'cuda-toml.*' 2>/dev/null | wc -l; }

# same_as_full WHEN: the lean front's `versions` and `current` print what cudaenv-full's do.
same_as_full() {
  local what
  for what in versions current; do
    CHECKS=$((CHECKS + 1))
    local front full
    front=$(cd "$WORK/proj" && "$CUDAENV" "$what" 2>&1)
    full=$(cd "$WORK/proj" && "$BUILD/cudaenv-full" "$what" 2>&1)
    [ "$front" = "$full" ] || fail "$1: the front's $what [$front], cudaenv-full's [$full]"
  done
}

# big_toml VERSION: a cuda.toml of about 100 KB (past the 64 KiB from which its parse is
# cached) asking for VERSION, the same size for every VERSION of one length.
big_toml() {
  printf '[cuda]\nversion = "%s"\n\n[env]\n' "$1"
  awk 'BEGIN { for (i = 0; i < 3000; i++) printf "CACHE_TEST_%05d = \"value %05d\"\n", i, i }'
}

# rewrite_in_place FILE VERSION: FILE rewritten as big_toml VERSION, keeping its inode and size.
rewrite_in_place() { big_toml "$2" | dd of="$1" conv=notrunc status=none; }
