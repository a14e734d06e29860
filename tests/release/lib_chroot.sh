# Shared by the release suites (tests/release/*.sh): the release scripts/release.sh built
# (CUDAENV_RELEASE_DIR=OUTDIR) tried as its users get it, in a Debian 11 chroot
# (debootstrap --variant=minbase bullseye, glibc 2.31) with Python and g++ but nothing cudaenv
# builds with, as a user that is not root. The chroot's tarball is kept in E2E_CACHE.
# Each chroot gets a /dev of its own (a tmpfs with the few device nodes and a devpts), never a
# bind of the host's, and the suite runs in a mount namespace of its own, so its mounts end with
# it whatever happens; they are also undone on every exit (and the chroot is removed without
# crossing into a mount).

# Into a mount namespace of our own (where the suite will run at all): every mount below is gone
# when the suite ends.
if [ -z "${CUDAENV_RELEASE_UNSHARED:-}" ] && [ -n "${CUDAENV_RELEASE_DIR:-}" ] && [ "$(id -u)" = 0 ]; then
  CUDAENV_RELEASE_UNSHARED=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

export PATH="$PATH:/usr/sbin:/sbin"  # debootstrap, chroot, mount, useradd
E2E_CACHE=${CUDAENV_E2E_CACHE:-/var/cache/cudaenv-e2e}
RELEASE=${CUDAENV_RELEASE_DIR:-}
[ -n "$RELEASE" ] || skip "opt-in suite: build the release first (scripts/release.sh OUTDIR, minutes) and run with" \
  "CUDAENV_RELEASE_DIR=OUTDIR; the chroot it makes is kept in $E2E_CACHE (CUDAENV_E2E_CACHE)"
[ -f "$RELEASE/SHA256SUMS" ] || fail "CUDAENV_RELEASE_DIR=$RELEASE holds no SHA256SUMS: is it a scripts/release.sh OUTDIR?"
RELEASE=$(cd "$RELEASE" && pwd)
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || skip "debootstrap is not installed (scripts/ensure-apt-packages.sh release-test)"
VERSION=$(sed -n 's/^project(cudaenv VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")

# python3-pip brings ca-certificates (the system bundle); curl is what cudaenv-install.sh
# downloads with; libc6-arm64-cross is the aarch64 glibc (2.31) qemu-aarch64-static runs on.
CHROOT_PACKAGES=python3,python3-venv,python3-pip,g++,curl,libc6-arm64-cross
CHROOT_TARBALL="$E2E_CACHE/bullseye-minbase-$(echo "$CHROOT_PACKAGES" | sha256sum | cut -c1-12).tar.gz"
ROOTFS="$WORK/rootfs"
USER_ID=1000
MOUNTS=()
SERVERS=()  # the loopback servers a suite started, stopped when it ends

make_chroot_tarball() {
  [ -f "$CHROOT_TARBALL" ] && return
  mkdir -p "$E2E_CACHE"
  local target="$WORK/debootstrap"
  echo "debootstrap bullseye into $CHROOT_TARBALL (once)" >&2
  debootstrap --variant=minbase --include="$CHROOT_PACKAGES" bullseye "$target" http://deb.debian.org/debian \
    >"$WORK/debootstrap.log" 2>&1 || { tail -20 "$WORK/debootstrap.log" >&2; fail "debootstrap bullseye failed"; }
  rm -rf "$target/var/cache/apt/archives"/*.deb "$target/var/lib/apt/lists"/*_Packages
  tar -C "$target" -czf "$CHROOT_TARBALL.tmp" . && mv "$CHROOT_TARBALL.tmp" "$CHROOT_TARBALL"
  rm -rf "$target"
}

undo_mounts() {
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[$i]}" 2>/dev/null; done
  MOUNTS=()
}

mount_at() {  # mount_at PATH MOUNT-ARGS...: mounts, and remembers to undo it
  mkdir -p "$1"
  mount "${@:2}" "$1" || fail "mount ${*:2} $1"
  MOUNTS+=("$1")
}

# A fresh chroot with the user, /proc, a private /dev, the release in /release and, read-only,
# the real CUDA 13.0 where the host has it.
setup_chroot() {
  make_chroot_tarball
  mkdir -p "$ROOTFS"
  tar -C "$ROOTFS" -xzf "$CHROOT_TARBALL"
  trap 'kill "${SERVERS[@]}" 2>/dev/null; undo_mounts; rm -rf --one-file-system "$WORK"' EXIT
  mount_at "$ROOTFS/proc" -t proc proc
  mount_at "$ROOTFS/dev" -t tmpfs -o mode=755,nosuid dev
  mknod -m 666 "$ROOTFS/dev/null" c 1 3
  mknod -m 666 "$ROOTFS/dev/zero" c 1 5
  mknod -m 666 "$ROOTFS/dev/random" c 1 8
  mknod -m 666 "$ROOTFS/dev/urandom" c 1 9
  mknod -m 666 "$ROOTFS/dev/tty" c 5 0
  mount_at "$ROOTFS/dev/pts" -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts
  ln -s pts/ptmx "$ROOTFS/dev/ptmx"
  mount_at "$ROOTFS/dev/shm" -t tmpfs -o mode=1777 shm
  if [ -x /usr/local/cuda-13.0/bin/nvcc ]; then
    mount_at "$ROOTFS/usr/local/cuda-13.0" --bind /usr/local/cuda-13.0
    mount -o remount,bind,ro "$ROOTFS/usr/local/cuda-13.0" || fail "remount CUDA 13.0 read-only"
  fi
  cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
  chroot "$ROOTFS" useradd -m -u "$USER_ID" -s /bin/bash user || fail "useradd in the chroot"
  cp -r "$RELEASE" "$ROOTFS/release"
  mkdir -p "$ROOTFS/support"
  cp "$SRC/tests/support/cuda_wheel_index.py" "$SRC/tests/support/tls_server.py" "$ROOTFS/support/"
}

# as_user HOME_NAME SCRIPT: runs SCRIPT with bash as the user, in a clean environment with
# HOME=/home/user/HOME_NAME (a home per scenario); OUT and ERR get its output, STATUS its code.
# AS_USER_IN names a command (and its arguments) that the chroot runs under.
AS_USER_IN=()
as_user() {
  local home="/home/user/$1"
  mkdir -p "$ROOTFS$home" && chown "$USER_ID:$USER_ID" "$ROOTFS$home"
  run_capture "${AS_USER_IN[@]}" chroot --userspec="$USER_ID:$USER_ID" "$ROOTFS" env -i HOME="$home" USER=user \
    SHELL=/bin/bash LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin bash -c "cd ~ && set -e && $2"
}

# Linux runs aarch64 programs through qemu-aarch64-static only where a binfmt_misc says so, and
# the host's is not this suite's to change. Since Linux 6.7 a user namespace mounts a binfmt_misc
# of its own: in_aarch64_userns COMMAND... runs COMMAND in a new one (every id mapped to itself,
# so root and the user stay who they are) whose binfmt_misc hands each aarch64 ELF program to
# qemu-aarch64-static, opened before COMMAND starts (flag F), so it works in the chroot too.
# The magic and mask are the ELF header of an aarch64 executable or shared object.
AARCH64_BINFMT=':qemu-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'\
':\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:QEMU:F'
in_aarch64_userns() {
  local fifo="$WORK/userns.$BASHPID" own pid status fd
  own=$(readlink /proc/self/ns/user)
  mkfifo "$fifo" && exec {fd}<>"$fifo" || return 1  # opened both ways: writing it never blocks
  unshare --user --mount --propagation private bash -c '
    read -r go <"$1" && [ "$go" = go ] || exit 1
    mkdir -p "$2" && mount -t binfmt_misc binfmt_misc "$2" && printf "%s" "$3" >"$2/register" ||
      { echo "cannot register qemu-aarch64-static in a user namespace'"'"'s binfmt_misc (Linux 6.7 or later)" >&2; exit 1; }
    shift 3 && exec "$@"' _ "$fifo" "$WORK/binfmt" "${AARCH64_BINFMT/QEMU/$(command -v qemu-aarch64-static)}" "$@" &
  pid=$!
  if wait_until 10 unshared_from "$own" "$pid" && echo "0 0 65536" >"/proc/$pid/uid_map" &&
     echo "0 0 65536" >"/proc/$pid/gid_map"; then
    echo go >&"$fd"
  else
    echo "cannot map the ids of a user namespace" >&2
    echo no >&"$fd"
  fi
  wait "$pid"
  status=$?
  exec {fd}>&-
  rm -f "$fifo"
  return "$status"
}
unshared_from() { [ "$(readlink "/proc/$2/ns/user")" != "$1" ]; }  # unshared_from NS PID

# The CA bundle of this host, which trusts this network's TLS (it is re-signed), as the
# chroot's system bundle.
install_host_ca_bundle() {
  cp /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
}

pypi_reachable() { curl -sf -o /dev/null -m 20 https://pypi.org/simple/cuda-toolkit/; }

# serve_wheel_index HOME_NAME: a loopback index of small CUDA 13.2.1 wheels for x86_64 and aarch64
# (tests/support/cuda_wheel_index.py) made in that home, served over http on PORT.
serve_wheel_index() {
  as_user "$1" "python3 /support/cuda_wheel_index.py index release 13.2.1 13.2.75 >/dev/null
    python3 /support/cuda_wheel_index.py index pages >/dev/null"
  assert_eq 0 "$STATUS" "the loopback index: $ERR"
  python3 -m http.server --bind 127.0.0.1 --directory "$ROOTFS/home/user/$1/index" 0 >"$WORK/index.log" 2>&1 &
  SERVERS+=($!)
  wait_until 10 grep -q "port" "$WORK/index.log"
  PORT=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$WORK/index.log" | head -1)
}

# toolkit_checks NAME CUDAENV: what each way of installing must give, with cudaenv at CUDAENV
# (a path in the chroot) and the scenario's HOME, and a stand-in CUDA 12.4 in /opt/fake-12.4:
# add, use, nvcc through the shim, the bash hook on cd, doctor.
toolkit_checks() {
  local name=$1 cudaenv=$2
  [ -x "$ROOTFS/opt/fake-12.4/bin/nvcc" ] || make_fake_toolkit "$ROOTFS/opt/fake-12.4" 12.4.1 >/dev/null
  as_user "$name" "
    $cudaenv add /opt/fake-12.4 >/dev/null 2>&1
    mkdir -p proj/sub && cd proj && $cudaenv use 12.4 >/dev/null 2>&1
    real=\$(readlink -f $cudaenv)
    [ ~/.cudaenv/shims/nvcc -ef \"\${real%/bin/cudaenv}/libexec/cudaenv/cudaenv-shim\" ] && echo shim=installed
    echo \"nvcc=\$(cd sub && ~/.cudaenv/shims/nvcc --version | tail -2 | head -1)\"
    printf '%s\n' 'eval \"\$($cudaenv init bash)\"' 'cd ~/proj/sub' 'echo \"hook=\$CUDA_HOME nvcc=\$(command -v nvcc)\"' |
      bash -i 2>/dev/null
    $cudaenv doctor >doctor.out 2>&1 || true
    echo \"doctor=\$(grep -c 12.4 doctor.out)\"
    grep -i 'internal error' doctor.out || true"
  assert_eq 0 "$STATUS" "$name: the toolkit scenario ran: $ERR"
  assert_contains "$OUT" "shim=installed" "$name: the shims are the installed cudaenv-shim"
  assert_contains "$OUT" "nvcc=Cuda compilation tools, release 12.4" "$name: nvcc through the shim, project pinned to 12.4"
  assert_contains "$OUT" "hook=/opt/fake-12.4 nvcc=/opt/fake-12.4/bin/nvcc" "$name: the bash hook on cd"
  assert_not_contains "$OUT" "doctor=0" "$name: doctor reports the toolkit"
  assert_not_contains "$OUT" "nternal error" "$name: doctor"
}
