# Helpers for the mirror suites, on top of lib_install.sh's upstream test mirror.

LOCAL="$WORK/local-mirror"  # the folder `mirror sync` fills

# sync ARGS...: cudaenv mirror sync from the upstream test mirror into $LOCAL; sets OUT/ERR/STATUS.
sync() {
  run_capture "$CUDAENV" mirror sync "$@" --to "$LOCAL" --mirror "$MIRROR_URL" --skip-manifest-pin --platform linux-x86_64
}

archive_of() {  # archive_of COMPONENT LABEL: the relative path of its archive in the fixture
  awk -F'\t' -v c="$1" -v l="$2" '$1 == l && $2 == c { print $4 }' "$WORK/components.tsv" | tail -1
}

archive_gets() {  # the upstream requests for archives since the log was cleared
  grep -c '\.tar\.' "$REQUEST_LOG" 2>/dev/null || true
}

damage() {  # damage FILE: flips its first byte, keeping the size
  printf 'X' | dd of="$1" bs=1 count=1 conv=notrunc status=none
}
