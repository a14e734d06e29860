# The aarch64 release under qemu-aarch64-static in the Debian 11 chroot, on Debian's aarch64
# glibc 2.31 (libc6-arm64-cross): installed with cudaenv-install.sh (its `uname -m` told
# aarch64), --version, versions, and `install 13.2 --source pypi` of linux-sbsa wheels from a
# loopback index. Without binfmt_misc qemu cannot follow an exec into another aarch64 program,
# so the network commands run cudaenv-fetch, the program cudaenv hands them to, directly.
. "$(dirname "$0")/lib_chroot.sh"
TARBALL=cudaenv-$VERSION-linux-aarch64.tar.gz
[ -f "$RELEASE/$TARBALL" ] || fail "$RELEASE has no $TARBALL"
command -v qemu-aarch64-static >/dev/null || skip "qemu-aarch64-static is not installed (scripts/ensure-apt-packages.sh release-test)"
setup_chroot
cp "$(command -v qemu-aarch64-static)" "$ROOTFS/usr/bin/"
# uname -m as an aarch64 machine answers it, for the installer.
printf '#!/bin/sh\n[ "$1" = -m ] && { echo aarch64; exit 0; }\nexec /bin/uname "$@"\n' >"$ROOTFS/usr/local/bin/uname"
chmod +x "$ROOTFS/usr/local/bin/uname"
QEMU="qemu-aarch64-static -L /usr/aarch64-linux-gnu"

as_user arm "sh /release/cudaenv-install.sh --from /release 2>&1 | tail -3 || true
  file=\$(head -c 20 .local/libexec/cudaenv/cudaenv-fetch | od -An -tx1 | tr -d ' \n')
  echo \"machine=\${file:36:4}\""
assert_eq 0 "$STATUS" "cudaenv-install.sh of the aarch64 tarball: $ERR"
assert_contains "$OUT" "machine=b700" "an aarch64 program (e_machine 183) was installed"

as_user arm "$QEMU .local/bin/cudaenv --version"
assert_eq 0 "$STATUS" "cudaenv --version under qemu: $ERR"
assert_eq "cudaenv $VERSION" "$OUT" "--version"

as_user arm "python3 /support/cuda_wheel_index.py index release 13.2.1 13.2.75 >/dev/null
  python3 /support/cuda_wheel_index.py index pages >/dev/null"
python3 -m http.server --bind 127.0.0.1 --directory "$ROOTFS/home/user/arm/index" 0 >"$WORK/index.log" 2>&1 &
HTTP=$!
trap 'kill $HTTP 2>/dev/null; undo_mounts; rm -rf --one-file-system "$WORK"' EXIT
wait_until 10 grep -q "port" "$WORK/index.log"
PORT=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$WORK/index.log" | head -1)
as_user arm "$QEMU .local/libexec/cudaenv/cudaenv-fetch install 13.2 --source pypi --platform linux-sbsa \
    --index-url http://127.0.0.1:$PORT/simple 2>&1 | tail -1
  $QEMU .local/bin/cudaenv versions"
assert_eq 0 "$STATUS" "install 13.2 --source pypi for linux-sbsa under qemu: $ERR"
assert_contains "$OUT" "13.2.1" "versions lists 13.2.1"
check "the sbsa wheels were installed" grep -rq aarch64 "$ROOTFS/home/user/arm/.cudaenv/versions/13.2.1/cudaenv-install.json"
finish
