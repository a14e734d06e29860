# The aarch64 release in the Debian 11 chroot as on an aarch64 machine: Debian 11's aarch64
# glibc 2.31 (libc6-arm64-cross) at the paths of an arm64 Debian, and every aarch64 program run
# by qemu-aarch64-static through a binfmt_misc of the suite's own (in_aarch64_userns), so the
# programs exec each other (cudaenv its fetch program, the shim nvcc) as they do there. The
# tarball installed with cudaenv-install.sh (told by `uname -m` that this is aarch64: the
# chroot's own tools are x86_64); the release's portability check on the installed programs;
# --version, add, use, nvcc through the static shim, the bash hook, doctor; the aarch64 wheel
# through pip, with the same checks; then `install 13.2 --source pypi` from a loopback index,
# which takes the linux-sbsa wheels, and `versions`.
. "$(dirname "$0")/lib_chroot.sh"
TARBALL=cudaenv-$VERSION-linux-aarch64.tar.gz
[ -f "$RELEASE/$TARBALL" ] || { fail "$RELEASE has no $TARBALL"; finish; }
command -v qemu-aarch64-static >/dev/null || skip "qemu-aarch64-static is not installed (scripts/ensure-apt-packages.sh release-test)"
in_aarch64_userns true 2>/dev/null ||
  skip "this kernel ($(uname -r)) mounts no binfmt_misc in a user namespace (Linux 6.7 and later do)," \
    "which runs the aarch64 programs through qemu-aarch64-static without changing the host's"
setup_chroot
ln -s /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 "$ROOTFS/lib/ld-linux-aarch64.so.1"
ln -s /usr/aarch64-linux-gnu/lib "$ROOTFS/lib/aarch64-linux-gnu"
printf '#!/bin/sh\n[ "$1" = -m ] && { echo aarch64; exit 0; }\nexec /bin/uname "$@"\n' >"$ROOTFS/usr/local/bin/uname"
chmod +x "$ROOTFS/usr/local/bin/uname"
AS_USER_IN=(in_aarch64_userns)

as_user arm "sh /release/cudaenv-install.sh --from /release
  echo \"version=\$(.local/bin/cudaenv --version)\""
assert_eq 0 "$STATUS" "cudaenv-install.sh of the aarch64 tarball: $ERR"
assert_contains "$OUT" "installed cudaenv $VERSION in /home/user/arm/.local" "the installer ran the aarch64 cudaenv"
assert_contains "$OUT" "version=cudaenv $VERSION" "--version under qemu"

# What the release script checked when it built them, read again from the installed files:
# aarch64 programs that need at most glibc 2.28, and a shim that needs nothing.
run_capture bash "$SRC/scripts/release/check-portable.sh" --machine aarch64 "$ROOTFS/home/user/arm/.local"
assert_eq 0 "$STATUS" "the installed aarch64 programs pass the portability check: $ERR"
assert_contains "$OUT" "libexec/cudaenv/cudaenv-shim static" "the aarch64 shim is static"
check "bin/cudaenv needs glibc 2.28 at most: $OUT" grep -Eq '^bin/cudaenv 2\.(1[7-9]|2[0-8])$' <<<"$OUT"
echo "$OUT" | sed 's/^/aarch64 needs: /'
run_capture bash "$SRC/scripts/release/check-portable.sh" --glibc-max 2.16 "$ROOTFS/home/user/arm/.local"
assert_eq 1 "$STATUS" "below aarch64's first glibc (2.17) the check refuses"
assert_contains "$ERR" "bin/cudaenv needs glibc 2." "the refusal names the aarch64 program"
assert_contains "$ERR" "@GLIBC_2.17" "and its aarch64 symbols"

toolkit_checks arm /home/user/arm/.local/bin/cudaenv

# The aarch64 wheel as pip installs it on an aarch64 machine: the chroot's pip is x86_64's, so
# it is told the platform, which it takes only with --target (pip lays the wheel's scripts and
# data out there as under a prefix). pip accepting the tag, the same tree as the tarball's, and
# the same checks as every other install.
WHEEL=cudaenv-$VERSION-py3-none-manylinux_2_28_aarch64.whl
as_user wheel "pip3 install -q --no-index --no-deps --only-binary=:all: --platform manylinux_2_28_aarch64 \
    --target prefix /release/$WHEEL
  prefix/bin/cudaenv --version"
assert_eq 0 "$STATUS" "pip install of the aarch64 wheel for manylinux_2_28_aarch64: $ERR"
assert_eq "cudaenv $VERSION" "$OUT" "the wheel's cudaenv under qemu"
run_capture diff -r --exclude="cudaenv-$VERSION.dist-info" "$ROOTFS/home/user/wheel/prefix" "$ROOTFS/home/user/arm/.local"
assert_eq 0 "$STATUS" "the wheel installs the tarball's tree: $OUT"
as_user wheel "pip3 install -q --no-index --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
  --target x86_64 /release/$WHEEL"
assert_eq 1 "$STATUS" "pip refuses the aarch64 wheel for an x86_64 machine"
assert_contains "$ERR" "is not a supported wheel on this platform" "pip says why"
toolkit_checks wheel /home/user/wheel/prefix/bin/cudaenv

serve_wheel_index arm
as_user arm ".local/bin/cudaenv install 13.2 --source pypi --index-url http://127.0.0.1:$PORT/simple 2>&1 | tail -1
  .local/bin/cudaenv versions --bare"
assert_eq 0 "$STATUS" "install 13.2 --source pypi under qemu: $ERR"
assert_contains "$OUT" "13.2.1" "versions lists 13.2.1"
RECORD="$ROOTFS/home/user/arm/.cudaenv/versions/13.2.1/cudaenv-install.json"
check "the linux-sbsa wheels were installed" grep -q 'manylinux_2_17_aarch64' "$RECORD"
check "no x86_64 wheel was installed" bash -c "! grep -q x86_64 '$RECORD'"
finish
