#!/usr/bin/env bash
# scripts/release/check-portable.sh [--glibc-max VERSION] [--machine ARCH] DIR: whether the ELF
# programs under DIR run on any Linux of their machine with glibc VERSION (default 2.28: RHEL 8,
# Ubuntu 20.04, Debian 10) or newer. Each may need only glibc's own libraries, and no symbol
# version above GLIBC_VERSION; the shim (cudaenv-shim) must need nothing at all (no program
# interpreter, no library). With --machine, each must be built for ARCH (x86_64, aarch64).
# binutils' readelf reads the ELF files of every machine, so one check serves every target.
# Prints "PATH GLIBC" for each program (the highest glibc it needs, or "static"); for each that
# fails, an error naming it and what it needs (each symbol above VERSION), then exits 1.
set -euo pipefail
glibc_max=2.28 machine=
while [ $# -gt 1 ]; do
  case "$1" in
    --glibc-max) glibc_max=$2 ;;
    --machine) machine=$2 ;;
    *) break ;;
  esac
  shift 2
done
[ $# -eq 1 ] && [ -d "$1" ] || { echo "usage: $0 [--glibc-max VERSION] [--machine ARCH] DIR" >&2; exit 2; }
dir=${1%/}
failed=0
refuse() { echo "release: error: $*" >&2; failed=1; }

newer_than_max() { [ "$1" != "$glibc_max" ] && [ "$(printf '%s\n%s\n' "$1" "$glibc_max" | sort -V | tail -1)" = "$1" ]; }

# The machine as uname -m names it, from the ELF header.
elf_machine() {
  case "$(readelf -h "$1" | sed -n 's/^ *Machine: *//p')" in
    "Advanced Micro Devices X86-64") echo x86_64 ;;
    AArch64) echo aarch64 ;;
    *) readelf -h "$1" | sed -n 's/^ *Machine: *//p' ;;
  esac
}

# The GLIBC_ versions FILE needs (its version needs section: what the loader checks), one a line.
glibc_versions_needed() {
  readelf -V --wide "$1" | awk '/^Version needs section/ { needs = 1; next }
    /^Version .* section/ { needs = 0 }
    needs && match($0, /Name: GLIBC_[0-9][0-9.]*/) { print substr($0, RSTART + 12, RLENGTH - 12) }' | sort -uV
}

check_program() {  # check_program FILE: prints "PATH GLIBC" or refuses
  local file=$1 name=${1#"$dir"/} needed library newest versions symbols
  if [ -n "$machine" ] && [ "$(elf_machine "$file")" != "$machine" ]; then
    refuse "$name is built for $(elf_machine "$file"), not $machine"
  fi
  needed=$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  if [ "$(basename "$file")" = cudaenv-shim ]; then
    readelf -l "$file" | grep -q INTERP && refuse "$name is not static: it names a program interpreter"
    [ -z "$needed" ] || refuse "$name is not static: it needs $(echo "$needed" | paste -sd ' ')"
  fi
  for library in $needed; do
    case "$library" in
      libc.so.6 | libm.so.6 | libpthread.so.0 | libdl.so.2 | librt.so.1 | ld-linux-*.so.*) ;;
      *) refuse "$name needs $library, which is not part of glibc: link it statically" ;;
    esac
  done
  versions=$(glibc_versions_needed "$file")
  newest=$(echo "$versions" | tail -1)
  if [ -n "$newest" ] && newer_than_max "$newest"; then
    symbols=$(readelf --dyn-syms --wide "$file" | grep -o '[A-Za-z_0-9.]*@GLIBC_[0-9][0-9.]*' | sort -u |
              while IFS=@ read -r symbol version; do
                newer_than_max "${version#GLIBC_}" && echo "$symbol@$version"
              done | paste -sd ' ')
    refuse "$name needs glibc $newest, newer than $glibc_max, for: ${symbols:-(no symbol names it)}"
  fi
  echo "$name ${newest:-static}"
}

while IFS= read -r file; do
  [ "$(head -c4 "$file" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ] && check_program "$file"
done < <(find "$dir" -type f | sort)
exit "$failed"
