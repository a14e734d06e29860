# Real CUDA 13.0 bytes compressed by the real xz program, with the options archives are made
# with (presets, xz -T blocks, odd lc/lp/pb, every check, a BCJ filter that liblzma decodes),
# installed from a loopback mirror: every file comes out byte for byte.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

CUDA=/usr/local/cuda-13.0
LIBRARY=$CUDA/lib64/libcusparse.so.12
[ -f "$LIBRARY" ] || skip "$LIBRARY is absent; this test needs the real CUDA 13.0 toolkit"
command -v xz >/dev/null || skip "xz is absent (apt-get install xz-utils)"

LABEL=13.0.3
add_fake_release "$LABEL"  # the components every install has; these archives come beside them
OPTIONS=("-0" "-6" "-9e" "-T2 --block-size=1MiB -3" "--lzma2=preset=6,lc=4,lp=0,pb=0"
         "--lzma2=preset=2,lc=0,lp=4,pb=4" "--check=none -1" "--check=sha256 -1" "--x86 --lzma2=preset=6")
index=0
for options in "${OPTIONS[@]}"; do
  part="$WORK/parts/xz$index"
  mkdir -p "$part/lib" "$part/include/xz$index"
  # A slice of a real library (code and packed device code) and real headers (text).
  tail -c +$((index * 3 + 1))M "$LIBRARY" | head -c 3M >"$part/lib/libslice$index.so"
  cp "$CUDA"/include/cuda_runtime*.h "$part/include/xz$index/"
  add_component "$LABEL" "xz$index" 1.0 "$part" "--use-compress-program=xz $options"
  index=$((index + 1))
done
write_manifest "$LABEL"
start_mirror

components=()
for ((i = 0; i < index; i++)); do components+=(--component "xz$i"); done
install_from_mirror "$LABEL" "${components[@]}"
assert_eq 0 "$STATUS" "install of archives xz wrote with ${#OPTIONS[@]} sets of options: $ERR"
HOME_=$CUDAENV_ROOT/versions/$LABEL
for ((i = 0; i < index; i++)); do
  check "xz ${OPTIONS[$i]}: the library slice is the same bytes" cmp -s "$WORK/parts/xz$i/lib/libslice$i.so" "$HOME_/lib/libslice$i.so"
  check "xz ${OPTIONS[$i]}: the headers are the same bytes" diff -r -q "$WORK/parts/xz$i/include/xz$i" "$HOME_/include/xz$i"
done
finish
