# Damaged and hostile .tar.xz, .tar.gz and .tar archives whose sha256 the manifest vouches for
# (a mirror that hashes what it holds): each is read to its end and every check it has is
# verified, on every xz decoding path (one block, several blocks, a BCJ filter), so a flipped
# check, a damaged stored chunk, data after the stream or after the LZMA2 end marker, an index
# that lies about sizes, and data after the tar's end all fail the install, naming the archive
# and leaving nothing behind. The same archives unmutated install byte for byte.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
command -v xz >/dev/null || skip "xz is absent (apt-get install xz-utils)"

hostile() { python3 "$SRC/tests/support/hostile_archives.py" "$@"; }

add_fake_release 12.1.1
# A library of noise (LZMA2 stores it in uncompressed chunks, which carry no check of their own)
# and a header.
TOP=cuda_evil-linux-x86_64-1.0-archive
mkdir -p "$WORK/evil/$TOP/lib" "$WORK/evil/$TOP/include"
head -c 300000 /dev/urandom >"$WORK/evil/$TOP/lib/libevil.so"
seq 1 20000 >"$WORK/evil/$TOP/include/evil.h"
# The random library first, whatever order the folder lists in (tmpfs and ext4 differ): the
# flip-stored mutation needs a stored chunk in the first block.
tar -C "$WORK/evil" --no-recursion -cf "$WORK/evil.tar" "$TOP" "$TOP/lib" "$TOP/lib/libevil.so" "$TOP/include" "$TOP/include/evil.h"

# add_evil NAME FILE: FILE served as component NAME's archive (its extension kept).
add_evil() {
  local name=$1 file=$2 base
  base=$(basename "$2")
  local ext=${base#*.}
  local relative="$name/linux-x86_64/$name-linux-x86_64-1.0-archive.$ext"
  mkdir -p "$MIRROR_ROOT/$name/linux-x86_64"
  cp "$file" "$MIRROR_ROOT/$relative"
  add_archive 12.1.1 "$name" 1.0 "$relative"
}

# The xz decoding paths: how the archive was written.
declare -A XZ_OPTIONS=([single]="-6 -T1" [multi]="-T2 --block-size=65536 -6" [bcj]="--x86 --lzma2=preset=6 -T1")
MUTATIONS="flip-check flip-stored garbage-block trailing after-end index-size"
for path in single multi bcj; do
  xz -c ${XZ_OPTIONS[$path]} "$WORK/evil.tar" >"$WORK/$path.tar.xz"
  add_evil "good_$path" "$WORK/$path.tar.xz"
  for mutation in $MUTATIONS; do
    hostile xz "$mutation" "$WORK/$path.tar.xz" "$WORK/$path-$mutation.tar.xz"
    add_evil "bad_${path}_${mutation//-/_}" "$WORK/$path-$mutation.tar.xz"
  done
done
for check in crc32 sha256 none; do
  xz -c -6 -T1 --check=$check "$WORK/evil.tar" >"$WORK/check-$check.tar.xz"
  add_evil "good_check_$check" "$WORK/check-$check.tar.xz"
  [ "$check" = none ] && continue
  hostile xz flip-check "$WORK/check-$check.tar.xz" "$WORK/check-$check-flipped.tar.xz"
  add_evil "bad_check_$check" "$WORK/check-$check-flipped.tar.xz"
done
# Data after the tar's end: a member tar never unpacks, or bytes that are no member.
for mutation in hidden trailing; do
  hostile tar "$mutation" "$WORK/evil.tar" "$WORK/tar-$mutation.tar"
  add_evil "bad_tar_$mutation" "$WORK/tar-$mutation.tar"
  gzip -c "$WORK/tar-$mutation.tar" >"$WORK/gz-$mutation.tar.gz"
  add_evil "bad_gz_$mutation" "$WORK/gz-$mutation.tar.gz"
  xz -c "$WORK/tar-$mutation.tar" >"$WORK/xz-$mutation.tar.xz"
  add_evil "bad_xz_$mutation" "$WORK/xz-$mutation.tar.xz"
done
# gzip's own checks: a flipped CRC-32 in its trailer, and data after its stream.
gzip -c "$WORK/evil.tar" >"$WORK/good.tar.gz"
add_evil good_gz "$WORK/good.tar.gz"
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[-8] ^= 1; open(sys.argv[2], "wb").write(d)' \
  "$WORK/good.tar.gz" "$WORK/gz-crc.tar.gz"
add_evil bad_gz_crc "$WORK/gz-crc.tar.gz"
{ cat "$WORK/good.tar.gz"; printf 'trailing'; } >"$WORK/gz-after.tar.gz"
add_evil bad_gz_after "$WORK/gz-after.tar.gz"
write_manifest 12.1.1
start_mirror

for good in good_single good_multi good_bcj good_check_crc32 good_check_sha256 good_check_none good_gz; do
  install_from_mirror 12.1.1 --component "$good"
  assert_eq 0 "$STATUS" "$good installs: $ERR"
  check "$good: the library is the same bytes" cmp -s "$WORK/evil/$TOP/lib/libevil.so" "$CUDAENV_ROOT/versions/12.1.1/lib/libevil.so"
  check "$good: the header is the same bytes" cmp -s "$WORK/evil/$TOP/include/evil.h" "$CUDAENV_ROOT/versions/12.1.1/include/evil.h"
  rm -rf "$CUDAENV_ROOT/versions/12.1.1"
done
"$CUDAENV" rehash >/dev/null 2>&1  # no toolkit: no shims

# refused NAME WHY: the install of NAME fails, naming it and its archive, and leaves nothing.
refused() {
  install_from_mirror 12.1.1 --component "$1"
  assert_eq 1 "$STATUS" "$1 is refused"
  assert_contains "$ERR" "$1: archive $CUDAENV_ROOT/cache/12.1.1/$1-linux-x86_64-1.0-archive." "$1: the error names the archive"
  assert_contains "$ERR" "is refused: $2" "$1: the error says why"
  assert_contains "$ERR" "(downloaded from ${MIRROR_URL}$1/" "$1: and where it came from"
  assert_not_contains "$ERR" "internal error" "$1: no internal error"
  check "$1: nothing installed" test ! -e "$CUDAENV_ROOT/versions/12.1.1"
  check "$1: no staging left" no_staging_left
  check "$1: no shims" test ! -e "$CUDAENV_ROOT/shims/nvcc"
}

corrupt="its xz data is corrupt"
for path in single multi bcj; do
  refused "bad_${path}_flip_check" "$corrupt"
  refused "bad_${path}_flip_stored" "$corrupt"
  refused "bad_${path}_garbage_block" "it has data after its xz stream that is no xz stream"
  refused "bad_${path}_trailing" "it has data after its xz stream that is no xz stream"
  refused "bad_${path}_after_end" "$corrupt"
  refused "bad_${path}_index_size" "$corrupt"
done
refused bad_check_crc32 "$corrupt"
refused bad_check_sha256 "$corrupt"
for kind in tar gz xz; do
  for mutation in hidden trailing; do
    refused "bad_${kind}_$mutation" "it has "
    assert_contains "$ERR" "bytes of data after the end of its tar archive" "bad_${kind}_$mutation: said as it is"
  done
done
refused bad_gz_crc "its gzip data fails its CRC-32 or length check"
refused bad_gz_after "it has data after its gzip stream"

finish
