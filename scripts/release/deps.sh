# The libraries a release links statically, each built from Debian's source package with only
# what cudaenv uses (sourced by scripts/release.sh; its hash is part of the cache key, so a
# change here rebuilds them). Each build_<package> runs in a copy of the unpacked source with:
#   PREFIX  where it installs (headers, lib/*.a)        TRIPLE  x86_64-linux-gnu, aarch64-linux-gnu
#   CC CXX AR RANLIB  zig wrappers for glibc 2.28        JOBS    make's -j
# The order matters: each library finds those before it in PREFIX, and a library's cache key holds
# the keys of those before it, so one added last rebuilds nothing else.
DEPS_PACKAGES=(zlib xz-utils nettle openssl curl libarchive libisal elfutils)
# Each comes from the build host's Debian release (and its -updates), at its newest version there,
# but liblzma from Debian 13 (that suite alone): from xz-utils 5.6 on, its LZMA decoder spends
# about 0.65 of 5.4's CPU on NVIDIA's archives, and an install on few cores is decode-bound
# (docs/performance.md, "What limits 40 and 100 MB/s"). Its version is named: Debian 13 lists
# 5.8.1-1+deb13u2 too, whose files the mirror these releases are built from did not have.
declare -A DEPS_SUITE=([xz-utils]=trixie) DEPS_VERSION=([xz-utils]=5.8.1-1+deb13u1)
# Header-only libraries: Debian's binary packages, unpacked (nothing to build), found by CMake
# through their package files.
HEADER_PACKAGES=(libcli11-dev libtomlplusplus-dev nlohmann-json3-dev)

autotools_static() {  # ./configure for a static library installed in PREFIX, then ARGS
  CPPFLAGS="-I$PREFIX/include" LDFLAGS="-L$PREFIX/lib" ./configure --host="$TRIPLE" --prefix="$PREFIX" \
    --libdir="$PREFIX/lib" --disable-shared --enable-static "$@" >configure.log
}

build_zlib() {
  CFLAGS="-O2" ./configure --static --prefix="$PREFIX" --libdir="$PREFIX/lib" >configure.log
  make -j"$JOBS" libz.a >/dev/null
  make install >/dev/null
}

# liblzma only: the xz tools are not needed.
build_xz-utils() {
  autotools_static --disable-xz --disable-xzdec --disable-lzmadec --disable-lzmainfo --disable-lzma-links \
    --disable-scripts --disable-doc --disable-nls
  make -j"$JOBS" -C src/liblzma >/dev/null
  make -C src/liblzma install >/dev/null
}

# sha256 and the other hashes; no public-key code (it would need GMP). --enable-fat picks the
# SHA extensions (x86) or the crypto extension (arm64) at run time, as Debian's build does.
build_nettle() {
  echo timestamp >stamp-h.in  # Debian's patch to configure.ac would otherwise call for autoheader
  autotools_static --disable-documentation --disable-openssl --disable-public-key --disable-mini-gmp --enable-fat
  make -j"$JOBS" libnettle.a >/dev/null
  make install-headers install-static >/dev/null
}

# TLS for libcurl. Its configuration file is never read (no-autoload-config, and curl is told
# the same): a system's openssl.cnf belongs to the system's OpenSSL, and may name modules or
# settings this one lacks.
build_openssl() {
  local target=linux-x86_64
  [ "$TRIPLE" = aarch64-linux-gnu ] && target=linux-aarch64
  ./Configure "$target" --prefix="$PREFIX" --libdir=lib --openssldir=/etc/ssl no-shared no-module no-tests \
    no-engine no-comp no-legacy no-autoload-config no-ssl3 no-dtls no-srp no-gost no-idea no-seed no-mdc2 \
    no-whirlpool no-rc5 no-camellia no-aria no-sm2 no-sm3 no-sm4 no-siphash no-ui-console no-capieng \
    no-afalgeng -DOPENSSL_NO_HEARTBEATS >configure.log
  make -j"$JOBS" build_libs >/dev/null
  make install_dev >/dev/null
}

# http(s) and file:// only; no compiled-in CA bundle or folder: cudaenv names the system's
# (src/install/ca_certificates.h).
build_curl() {
  autotools_static --with-openssl="$PREFIX" --with-zlib="$PREFIX" --without-ca-bundle --without-ca-path \
    --without-ca-fallback --disable-openssl-auto-load-config --enable-threaded-resolver --disable-ldap \
    --disable-ldaps --disable-rtsp --disable-dict --disable-telnet --disable-tftp --disable-pop3 --disable-imap \
    --disable-smb --disable-smtp --disable-gopher --disable-mqtt --disable-ftp --disable-manual --disable-docs \
    --without-libidn2 --without-libpsl --without-brotli --without-zstd --without-nghttp2 --without-libssh2 \
    --without-librtmp --without-gssapi --without-libgsasl --disable-ntlm --disable-kerberos-auth \
    --disable-negotiate-auth --disable-aws --disable-alt-svc --disable-hsts
  make -j"$JOBS" -C lib >/dev/null
  make -C lib install >/dev/null
  make -C include install >/dev/null
  make install-pkgconfigDATA >/dev/null
}

# Reading tar.xz and zip (wheels) and writing files: zlib and liblzma, nothing else.
build_libarchive() {
  autoreconf -fi >/dev/null 2>&1  # Debian's patches change configure.ac, as its own build does
  autotools_static --disable-bsdtar --disable-bsdcat --disable-bsdcpio --disable-acl --disable-xattr \
    --with-zlib --with-lzma --without-bz2lib --without-libb2 --without-iconv --without-lz4 --without-zstd \
    --without-lzo2 --without-cng --without-openssl --without-nettle --without-mbedtls --without-xml2 --without-expat
  make -j"$JOBS" libarchive.la >/dev/null
  make install-libLTLIBRARIES install-includeHEADERS install-pkgconfigDATA >/dev/null
}

# ISA-L's inflate (igzip), the install's one inflate for wheels and .tar.gz. Its x86_64 code is
# nasm assembly (the release packages name nasm). Its aarch64 code is written for GNU as, which
# Debian's gcc build uses: clang's integrated assembler refuses register widths GNU as takes
# (`uxtw w, w`; an x register extended with uxtw). So for aarch64 the assembly goes through
# ccas-gnu-as, made here: CC preprocesses it (-E, as ISA-L's Makefile.am has CC do), binutils'
# aarch64-linux-gnu-as assembles it (binutils-aarch64-linux-gnu, a release package), and lld
# links its objects as any other. Makefile.am sets CCAS itself; make's command line overrides it.
# One change to the objects: .rodata.cst16 loses SHF_MERGE (objcopy). lld splits a mergeable
# section into its 16-byte entries and may reorder them, while adler32_neon reads a 32-byte table
# from one: with SHF_MERGE its sums came out wrong under qemu (Debian's build links with GNU ld).
build_libisal() {
  ./autogen.sh >/dev/null 2>&1
  autotools_static
  local ccas=()
  if [ "$TRIPLE" = aarch64-linux-gnu ]; then
    cat >ccas-gnu-as <<EOF
#!/bin/sh
# ccas-gnu-as ARGS... -c -o OBJECT SOURCE.S: CC -E ARGS... SOURCE.S, then GNU as into OBJECT.
object= next=
for arg do
  shift
  if [ "\$next" = o ]; then object=\$arg next=; continue; fi
  case \$arg in
    -c) ;;
    -o) next=o ;;
    *) set -- "\$@" "\$arg" ;;
  esac
done
"$CC" -Wno-unused-command-line-argument -E "\$@" -o "\$object.s" &&
  aarch64-linux-gnu-as -o "\$object" "\$object.s" &&
  aarch64-linux-gnu-objcopy --set-section-flags .rodata.cst16=alloc,load,readonly,data,contents "\$object" &&
  rm -f "\$object.s"
EOF
    chmod +x ccas-gnu-as
    ccas=(CCAS="$PWD/ccas-gnu-as -D__ASSEMBLY__")
  fi
  make -j"$JOBS" libisal.la "${ccas[@]}" >/dev/null
  make install-libLTLIBRARIES install-nobase_includeHEADERS install-pkgincludeHEADERS "${ccas[@]}" >/dev/null
}

# libelf only (src/extensions reads ELF files with it): no libdw, tools or debuginfod. It needs
# zlib alone (compressed sections); bzip2 and xz are libdwfl's, zstd only another compression of
# sections, and glibc has the argp, fts and obstack configure asks for. Debian's patch drops
# -Werror from config/eu.am, but the Makefile.in files are not regenerated (maintainer mode is
# off), so -Wno-error after it does the same: elfutils is built with gcc, and a newer clang may
# warn where gcc does not.
build_elfutils() {
  CFLAGS="-g -O2 -Wno-error" autotools_static --disable-libdebuginfod --disable-debuginfod --without-bzlib \
    --without-lzma --without-zstd --disable-nls
  make -j"$JOBS" -C libelf libelf.a >/dev/null
  make -C libelf install-libLIBRARIES install-includeHEADERS >/dev/null  # libelf.h, gelf.h, nlist.h
}
