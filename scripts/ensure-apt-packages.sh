#!/usr/bin/env bash
# ensure-apt-packages.sh SET...: installs the Debian packages of each SET that are missing
# (apt-get update only when something is), as root or through sudo.
#   build  what building cudaenv needs (install.sh)
#   test   what the test suites need on top (test.sh): Catch2, the shells, pseudo-terminals,
#          the loopback servers and tools the integration scripts drive
#   release       what scripts/release.sh needs: apt-get source, readelf, twine, nasm (ISA-L's
#                 x86_64 code), aarch64's binutils (strip, and as for ISA-L's aarch64 code)
#   release-test  what the release suites (tests/release) need on top: a Debian chroot, qemu
#                 (the aarch64 glibc is installed in the chroot)
set -euo pipefail
packages=()
for set in "$@"; do
  case "$set" in
    build) packages+=(g++ cmake ninja-build pkg-config libcli11-dev libtomlplusplus-dev musl-tools
                      libcurl4-openssl-dev libarchive-dev liblzma-dev libisal-dev zlib1g-dev nlohmann-json3-dev nettle-dev
                      libelf-dev) ;;
    test) packages+=(catch2 zsh fish tmux python3 python3-venv xz-utils curl file jq lmod nginx time make strace) ;;
    release) packages+=(dpkg-dev binutils binutils-aarch64-linux-gnu python3-venv cmake ninja-build make m4 autoconf automake libtool pkg-config perl twine nasm) ;;
    release-test) packages+=(debootstrap qemu-user-static) ;;
    *) echo "cudaenv: error: unknown package set '$set'" >&2
       echo "  use: $0 build|test|release|release-test..." >&2
       exit 2 ;;
  esac
done
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "cudaenv: error: missing Debian packages: ${missing[*]}" >&2
  echo "  install them as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}" >&2
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
