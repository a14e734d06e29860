# Hostile wheels whose sha256 the index vouches for: a wheel has one table of contents, so its
# local headers and central directory must agree (name, sizes, CRC-32, method, flags), each
# member's data must be exactly as long as it declares, and nothing may hide before, between or
# after what the format accounts for. Each refusal names the wheel and the member and leaves
# nothing behind. pip in a real venv is shown the same wheels: cudaenv refuses every one pip
# refuses (and some pip takes).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

hostile() { python3 "$SRC/tests/support/hostile_archives.py" "$@"; }
wheels release 13.0.2 13.0.88
NVCC=nvidia_cuda_nvcc-13.0.88-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
# A header a reviewer sees; its local header is what a hostile wheel renames (same length).
wheels hostile nvidia-cuda-nvcc 13.0.88 nvidia/cu13/include/a.h
mkdir -p "$WORK/pristine"
PRISTINE="$WORK/pristine/$NVCC"  # pip reads the wheel's name
cp "$INDEX_ROOT/files/$NVCC" "$PRISTINE"
wheels pages
start_mirror
INDEX="${MIRROR_URL}simple"

python3 -m venv "$WORK/venv" >/dev/null 2>&1 || skip "python3 -m venv does not work here (apt-get install python3-venv)"
pip_takes() {  # pip_takes WHEEL: pip installs it (into a folder of its own)
  rm -rf "$WORK/pip-target"
  "$WORK/venv/bin/python" -m pip install --quiet --no-deps --no-index --disable-pip-version-check \
    --target "$WORK/pip-target" "$1" >"$WORK/pip.log" 2>&1
}
check "pip installs the unaltered wheel" pip_takes "$PRISTINE"

pypi_install() { run_capture "$CUDAENV" install 13.0.2 --source pypi --index-url "$INDEX" --platform linux-x86_64 "$@"; }
pypi_install
assert_eq 0 "$STATUS" "the unaltered wheels install: $ERR"
check "a.h is installed where the central directory says" test -f "$CUDAENV_ROOT/versions/13.0.2/include/a.h"
check "nvcc is executable, as the central directory says" test -x "$CUDAENV_ROOT/versions/13.0.2/bin/nvcc"
check "a header is not" test ! -x "$CUDAENV_ROOT/versions/13.0.2/include/a.h"
rm -rf "$CUDAENV_ROOT/versions/13.0.2"
"$CUDAENV" rehash >/dev/null 2>&1

# refused MUTATION WHY ARGS...: the nvcc wheel so altered (its sha256 on the index updated) fails
# the install, naming the wheel and why, and leaves nothing behind. Sets PIP (took / refused).
refused() {
  local mutation=$1 why=$2
  shift 2
  hostile wheel "$mutation" "$PRISTINE" "$INDEX_ROOT/files/$NVCC" "$@"
  wheels pages
  pypi_install
  assert_eq 1 "$STATUS" "$mutation: refused"
  assert_contains "$ERR" "cuda_nvcc: archive $CUDAENV_ROOT/cache/13.0.2/$NVCC is refused: $why" "$mutation: the wheel and why"
  assert_contains "$ERR" "(downloaded from ${MIRROR_URL}files/$NVCC)" "$mutation: where it came from"
  assert_not_contains "$ERR" "internal error" "$mutation: no internal error"
  check "$mutation: nothing installed" test ! -e "$CUDAENV_ROOT/versions/13.0.2"
  check "$mutation: no staging left" no_staging_left
  check "$mutation: no shims" test ! -e "$CUDAENV_ROOT/shims/nvcc"
  check "$mutation: no gcc1234 anywhere" test -z "$(find "$CUDAENV_ROOT" -name 'gcc1234*')"
  PIP=refused
  pip_takes "$INDEX_ROOT/files/$NVCC" && PIP=took
}

# The executable a reviewer never sees: unzip -l and pip show include/a.h.
refused rename "its central directory names the member at offset" nvidia/cu13/include/a.h nvidia/cu13/bin/gcc1234
assert_contains "$ERR" "'nvidia/cu13/include/a.h', but its local header names it 'nvidia/cu13/bin/gcc1234'" "rename: both names shown"
assert_eq refused "$PIP" "rename: pip refuses it too"
# 4 GiB declared, 13 bytes held: never a sparse file of the declared size.
refused declare-size "member 'nvidia/cu13/include/fatbinary_section.h''s size is 13, but its local header says 4294967294" \
  nvidia/cu13/include/fatbinary_section.h 4294967294
assert_eq took "$PIP" "declare-size: pip (zipfile) takes it, writing the bytes it holds"
refused flip-crc "member 'nvidia/cu13/include/a.h''s CRC-32 is" nvidia/cu13/include/a.h
assert_eq refused "$PIP" "flip-crc: pip refuses it too"
refused hide "member 'nvidia/cu13/bin/nvcc' (at offset" nvidia/cu13/bin/nvcc
assert_contains "$ERR" "is not in the central directory, so pip and unzip -l would not show it" "hide: said as it is"
assert_eq took "$PIP" "hide: pip takes it, without the hidden member"
refused trailing "has data after its end record"
assert_eq took "$PIP" "trailing: pip takes it"
refused prefix "does not start with a zip member"
assert_eq took "$PIP" "prefix: pip takes it"

finish
