#!/usr/bin/env bash
# scripts/release.sh OUTDIR: builds the release of this checkout (docs/release.md) into OUTDIR:
#   cudaenv-VERSION-linux-{x86_64,aarch64}.tar.gz   the installed tree (cmake --install) of a
#       portable build: every library but glibc linked in, nothing newer than glibc 2.28 needed,
#       the shim fully static; LICENSE and the bundled libraries' notices in share/doc/cudaenv
#   cudaenv-VERSION-py3-none-manylinux_2_28_{x86_64,aarch64}.whl   the same tree as a wheel
#   cudaenv-install.sh   the installer for machines without pip     SHA256SUMS   of all of them
# The only part of cudaenv that downloads: zig (PyPI's ziglang, the cross compiler that links
# against glibc 2.28 and musl) and Debian's source packages of the libraries (apt-get source,
# with a deb-src list of its own). Both, the libraries built from them (per target and
# versions) and the build folders are kept in CUDAENV_RELEASE_CACHE (/var/cache/cudaenv-release),
# so a second run only rebuilds what changed.
#   RELEASE_TARGETS="x86_64"   build fewer targets (the release needs both)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
CACHE=${CUDAENV_RELEASE_CACHE:-/var/cache/cudaenv-release}
TARGETS=(${RELEASE_TARGETS:-x86_64 aarch64})
ZIG_VERSION=0.17.1
GLIBC_MAX=2.28
VERSION=$(sed -n 's/^project(cudaenv VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
JOBS=${JOBS:-$(nproc)}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-/work} CCACHE_DIR=${CCACHE_DIR:-/var/cache/ccache}
export ZIG_GLOBAL_CACHE_DIR="$CACHE/zig-cache" ZIG_LOCAL_CACHE_DIR="$CACHE/zig-cache"
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$SRC" log -1 --format=%ct 2>/dev/null || date +%s)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cudaenv-release.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE"
started=$SECONDS
say() { printf '[%4ds] %s\n' $((SECONDS - started)) "$*" >&2; }
die() { echo "release: error: $*" >&2; exit 1; }

"$SRC/scripts/ensure-apt-packages.sh" release

# zig from PyPI, in a venv of its own; wrappers that name the target, as build systems want
# one program for CC.
tools="$CACHE/tools/ziglang-$ZIG_VERSION"
if [ ! -x "$tools/venv/bin/python" ] || ! "$tools/venv/bin/python" -m ziglang version >/dev/null 2>&1; then
  say "installing ziglang $ZIG_VERSION from PyPI"
  rm -rf "$tools" && python3 -m venv "$tools/venv"
  "$tools/venv/bin/pip" install -q --disable-pip-version-check "ziglang==$ZIG_VERSION"
fi
ZIG=$("$tools/venv/bin/python" -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
ZIG_LIB=$(dirname "$ZIG")/lib
wrappers="$tools/bin"
mkdir -p "$wrappers"
write_wrapper() {  # write_wrapper NAME ZIG-ARGS...: a program that runs `zig ARGS... "$@"`
  printf '#!/bin/sh\nexec %s %s "$@"\n' "$ZIG" "${*:2}" >"$wrappers/$1.tmp"
  chmod +x "$wrappers/$1.tmp" && mv "$wrappers/$1.tmp" "$wrappers/$1"
}
for arch in "${TARGETS[@]}"; do
  # "clang" in the names: ccache recognises the compiler by its name.
  write_wrapper "$arch-linux-gnu-clang" cc -target "$arch-linux-gnu.$GLIBC_MAX"
  write_wrapper "$arch-linux-gnu-clang++" c++ -target "$arch-linux-gnu.$GLIBC_MAX"
  write_wrapper "$arch-linux-musl-clang" cc -target "$arch-linux-musl"
done
write_wrapper zig-ar ar
write_wrapper zig-ranlib ranlib

# Debian's source packages, through a deb-src list and apt state of this script's own for each
# release they come from (the system's apt configuration is left as it is), refreshed once a day.
. "$SRC/scripts/release/deps.sh"
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
apt_options_for() {  # apt_options_for SUITE...: sets apt_options to those suites' sources
  local apt_dir="$CACHE/apt/$1"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/parts"
  for suite in "$@"; do
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main"
  done >"$apt_dir/sources.list"
  apt_options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/parts"
               -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir" -o APT::Sandbox::User=root -qq)
  if [ -z "$(find "$apt_dir/lists" -maxdepth 1 -name '*Sources*' -mtime -1 2>/dev/null)" ]; then
    say "apt-get update (deb-src $1)"
    apt-get "${apt_options[@]}" update
  fi
}
declare -A SOURCE_DIR SOURCE_VERSION
for package in "${DEPS_PACKAGES[@]}"; do
  if [ -n "${DEPS_SUITE[$package]:-}" ]; then apt_options_for "${DEPS_SUITE[$package]}"; else apt_options_for "$codename" "$codename-updates"; fi
  wanted=$package${DEPS_VERSION[$package]:+=${DEPS_VERSION[$package]}}
  dsc=$(apt-get "${apt_options[@]}" source --print-uris "$wanted" | awk '$2 ~ /\.dsc$/ { print $2 }')
  [ -n "$dsc" ] || die "apt-get source found no source package $package (is deb.debian.org reachable?)"
  version=${dsc#*_}
  version=${version%.dsc}
  dir="$CACHE/src/${package}_$version"
  if [ ! -f "$dir/.unpacked" ]; then
    say "apt-get source $package=$version"
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && apt-get "${apt_options[@]}" source "$wanted" >/dev/null)
    touch "$dir/.unpacked"
  fi
  SOURCE_VERSION[$package]=$version
  SOURCE_DIR[$package]=$(find "$dir" -mindepth 1 -maxdepth 1 -type d | head -1)
done

declare -A HEADERS_VERSION
for package in "${HEADER_PACKAGES[@]}"; do
  HEADERS_VERSION[$package]=$(apt-cache policy "$package" | awk '/Candidate:/ { print $2 }')
done
headers="$CACHE/headers/$(for p in "${HEADER_PACKAGES[@]}"; do echo "$p ${HEADERS_VERSION[$p]}"; done | sha256sum | cut -c1-16)"
if [ ! -f "$headers/.complete" ]; then
  rm -rf "$headers" && mkdir -p "$headers/debs"
  for package in "${HEADER_PACKAGES[@]}"; do
    say "apt-get download $package=${HEADERS_VERSION[$package]}"
    (cd "$headers/debs" && apt-get -qq -o APT::Sandbox::User=root download "$package=${HEADERS_VERSION[$package]}")
  done
  for deb in "$headers"/debs/*.deb; do dpkg-deb -x "$deb" "$headers"; done
  touch "$headers/.complete"
fi

# The static libraries of one target, each built once for its version, its recipe, the recipes
# before it and zig: a stamp in the prefix holds that key. Its build time is kept beside it.
build_deps() {  # build_deps ARCH: prints the prefix
  local arch=$1 prefix="$CACHE/deps/$1" key="$ZIG_VERSION $(declare -f autotools_static)" begin
  mkdir -p "$prefix/logs"
  for package in "${DEPS_PACKAGES[@]}"; do
    key=$(printf '%s\n%s %s\n%s' "$key" "$package" "${SOURCE_VERSION[$package]}" "$(declare -f "build_$package")" |
          sha256sum | cut -c1-16)
    [ "$(cat "$prefix/.stamp-$package" 2>/dev/null)" = "$key" ] && continue
    say "building $package ${SOURCE_VERSION[$package]} for $arch (log: $prefix/logs/$package.log)"
    rm -f "$prefix/.stamp-$package"
    begin=$SECONDS
    rm -rf "$WORK/deps-build" && cp -a "${SOURCE_DIR[$package]}" "$WORK/deps-build"
    (
      cd "$WORK/deps-build"
      export PREFIX="$prefix" TRIPLE="$arch-linux-gnu" JOBS CC="$wrappers/$arch-linux-gnu-clang"
      export CXX="$wrappers/$arch-linux-gnu-clang++" AR="$wrappers/zig-ar" RANLIB="$wrappers/zig-ranlib"
      export PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig" PKG_CONFIG_PATH=
      bash -euxo pipefail -c '. "$1"; "build_$2"' _ "$SRC/scripts/release/deps.sh" "$package" ||
        { tail -30 configure.log 2>/dev/null; exit 1; }
    ) >"$prefix/logs/$package.log" 2>&1 ||
      { tail -40 "$prefix/logs/$package.log" >&2; die "building $package for $arch failed (log: $prefix/logs/$package.log)"; }
    echo $((SECONDS - begin)) >"$prefix/.seconds-$package"
    echo "$key" >"$prefix/.stamp-$package"
  done
  echo "$prefix"
}

# A CMake toolchain for the portable build of one target, and that build, installed in STAGE (a
# prefix of its own: GNUInstallDirs would put a prefix of / under usr/).
portable_build() {  # portable_build ARCH PREFIX STAGE
  local arch=$1 prefix=$2 stage=$3 build
  build="$CACHE/build/$arch-$(echo "$SRC" | sha256sum | cut -c1-8)"
  mkdir -p "$build"
  cat >"$build/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR $arch)
set(CMAKE_C_COMPILER $wrappers/$arch-linux-gnu-clang)
set(CMAKE_CXX_COMPILER $wrappers/$arch-linux-gnu-clang++)
set(CMAKE_AR $wrappers/zig-ar CACHE FILEPATH "")
set(CMAKE_RANLIB $wrappers/zig-ranlib CACHE FILEPATH "")
set(CMAKE_FIND_ROOT_PATH $prefix $headers)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
EOF
  # The header packages' CMake files, wherever Debian put them (toml++'s are under the host's
  # multiarch folder, which a cross build does not search).
  local config
  for config in $(find "$headers" -name '*Config.cmake'); do
    echo "set($(basename "$config" Config.cmake)_DIR $(dirname "$config"))"
  done >>"$build/toolchain.cmake"
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S "$SRC" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$build/toolchain.cmake" -DCMAKE_BUILD_TYPE=Release \
    -DCUDAENV_PORTABLE=ON -DBUILD_TESTING=OFF -DCUDAENV_MUSL_GCC="$wrappers/$arch-linux-musl-clang" \
    -DCMAKE_INSTALL_PREFIX=/opt/cudaenv "${launcher[@]}" >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log" >&2; die "configuring the $arch build failed"; }
  cmake --build "$build" -j"$JOBS" >"$build/build.log" 2>&1 ||
    { tail -40 "$build/build.log" >&2; die "the $arch build failed (log: $build/build.log)"; }
  cmake --install "$build" --prefix "$stage" >/dev/null
}

# The libraries a binary carries, with their licenses: Debian's copyright file of each source
# package, and the runtime zig links in.
write_notice() {  # write_notice FILE
  {
    echo "cudaenv $VERSION links these libraries into its programs. Their licenses follow, each as"
    echo "Debian's source package states it (debian/copyright), or as the library ships it."
    echo
    for package in "${DEPS_PACKAGES[@]}"; do
      echo "- $package ${SOURCE_VERSION[$package]} (Debian source package)"
    done
    for package in "${HEADER_PACKAGES[@]}"; do
      echo "- $package ${HEADERS_VERSION[$package]} (Debian package, header-only)"
    done
    echo "- LLVM libc++, libc++abi and libunwind, and musl (the shim's C library), as zig $ZIG_VERSION ships them"
    echo "- glibc is not bundled: the programs use the system's."
    for package in "${DEPS_PACKAGES[@]}"; do
      printf '\n\n==== %s %s: debian/copyright ====\n\n' "$package" "${SOURCE_VERSION[$package]}"
      cat "${SOURCE_DIR[$package]}/debian/copyright"
    done
    for package in "${HEADER_PACKAGES[@]}"; do
      printf '\n\n==== %s %s: copyright ====\n\n' "$package" "${HEADERS_VERSION[$package]}"
      cat "$headers/usr/share/doc/$package/copyright"
    done
    for file in libcxx/LICENSE.TXT libcxxabi/LICENSE.TXT libunwind/LICENSE.TXT libc/musl/COPYRIGHT; do
      printf '\n\n==== %s (zig %s lib/%s) ====\n\n' "${file%%/*}" "$ZIG_VERSION" "$file"
      cat "$ZIG_LIB/$file"
    done
  } >"$1"
}

rm -f "$OUT"/cudaenv-*.tar.gz "$OUT"/cudaenv-*.whl "$OUT/cudaenv-install.sh" "$OUT/SHA256SUMS"
report="$WORK/report"
declare -A BUILD_SECONDS
for arch in "${TARGETS[@]}"; do
  prefix=$(build_deps "$arch")
  say "libraries for $arch: $prefix (built in $(cat "$prefix"/.seconds-* | awk '{ s += $1 } END { print s }') s when cold)"
  name="cudaenv-$VERSION-linux-$arch"
  stage="$WORK/stage/$name"
  say "building cudaenv for $arch"
  begin=$SECONDS
  portable_build "$arch" "$prefix" "$stage"
  BUILD_SECONDS[$arch]=$((SECONDS - begin))
  "$SRC/scripts/release/check-portable.sh" --glibc-max "$GLIBC_MAX" --machine "$arch" "$stage" >"$WORK/needs" ||
    die "the $arch programs are not portable (above)"
  sed "s/^/$arch: /" "$WORK/needs" >>"$report"
  # Stripping keeps what the check read (the dynamic section, symbols and versions).
  strip=strip
  [ "$arch" = "$(uname -m)" ] || strip=$arch-linux-gnu-strip
  for program in $(cut -d' ' -f1 "$WORK/needs"); do "$strip" --strip-all "$stage/$program"; done
  write_notice "$stage/share/doc/cudaenv/THIRD-PARTY-NOTICES"
  say "packing $name"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" -C "$WORK/stage" -cf - "$name" |
    gzip -9n >"$OUT/$name.tar.gz"
  python3 "$SRC/scripts/release/wheel.py" "$stage" "$VERSION" "manylinux_2_28_$arch" "$SRC/README.md" "$OUT"
done
sed "s/@VERSION@/$VERSION/g" "$SRC/scripts/release/cudaenv-install.sh" >"$OUT/cudaenv-install.sh"
chmod +x "$OUT/cudaenv-install.sh"
twine check --strict "$OUT"/*.whl >&2
(cd "$OUT" && sha256sum cudaenv-* >SHA256SUMS)

echo "cudaenv $VERSION release in $OUT (built in $((SECONDS - started)) s):"
(cd "$OUT" && for file in *; do printf '  %-52s %10s bytes\n' "$file" "$(stat -c %s "$file")"; done)
echo "highest glibc version each program needs (at most $GLIBC_MAX):"
sed 's/^/  /' "$report"
echo "seconds the build of cudaenv itself took (configure, compile through ccache, install):"
for arch in "${TARGETS[@]}"; do printf '  %s: %s\n' "$arch" "${BUILD_SECONDS[$arch]}"; done
echo "seconds each static library took to build, when it was built (kept in $CACHE/deps):"
for arch in "${TARGETS[@]}"; do
  printf '  %s:' "$arch"
  for package in "${DEPS_PACKAGES[@]}"; do printf ' %s %s' "$package" "$(cat "$CACHE/deps/$arch/.seconds-$package")"; done
  echo
done
