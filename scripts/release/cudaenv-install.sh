#!/bin/sh
# cudaenv-install.sh: installs cudaenv @VERSION@ for this machine, without root.
#   sh cudaenv-install.sh [--from DIR_OR_URL] [--prefix PREFIX]
# Takes cudaenv-@VERSION@-linux-ARCH.tar.gz and SHA256SUMS from DIR_OR_URL (a folder or an
# http(s) URL; default CUDAENV_RELEASE_URL, else the project's release page), refuses a tarball
# whose sha256 SHA256SUMS does not list, and unpacks it into PREFIX (default ~/.local):
# PREFIX/bin/cudaenv, PREFIX/libexec/cudaenv, PREFIX/share/cudaenv, share/doc/cudaenv and the
# completions. Run again, it replaces those in place (an upgrade) and renews the shims; nothing
# else in PREFIX is touched. Prints the one line to add to the shell's rc file.
set -eu
VERSION=@VERSION@
FROM=${CUDAENV_RELEASE_URL:-https://releases.cudaenv.invalid/v$VERSION}
PREFIX=${PREFIX:-$HOME/.local}

fail() {
  echo "cudaenv-install: error: $1" >&2
  [ $# -lt 2 ] || echo "  $2" >&2
  exit 1
}
while [ $# -gt 0 ]; do
  case "$1" in
    --from) [ $# -ge 2 ] || fail "--from needs a folder or a URL"; FROM=$2; shift 2 ;;
    --from=*) FROM=${1#--from=}; shift ;;
    --prefix) [ $# -ge 2 ] || fail "--prefix needs a folder"; PREFIX=$2; shift 2 ;;
    --prefix=*) PREFIX=${1#--prefix=}; shift ;;
    -h | --help) sed -n '2,9p' "$0" 2>/dev/null | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown argument '$1'" "usage: sh cudaenv-install.sh [--from DIR_OR_URL] [--prefix PREFIX]" ;;
  esac
done

case "$(uname -s)" in
  Linux) ;;
  *) fail "cudaenv runs on Linux; this is $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x86_64 ;;
  aarch64 | arm64) arch=aarch64 ;;
  *) fail "no cudaenv build for $(uname -m)" "builds exist for x86_64 and aarch64; or build from source (./install.sh)" ;;
esac
tarball=cudaenv-$VERSION-linux-$arch.tar.gz

work=$(mktemp -d "${TMPDIR:-/tmp}/cudaenv-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM PIPE  # through the EXIT trap, which removes what was unpacked

fetch() {  # fetch NAME: FROM/NAME into $work/NAME
  case "$FROM" in
    http://* | https://*)
      if command -v curl >/dev/null 2>&1; then
        curl -fsSL --retry 3 -o "$work/$1" "$FROM/$1" || fail "could not download $FROM/$1" "check the URL (--from)"
      elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$work/$1" "$FROM/$1" || fail "could not download $FROM/$1" "check the URL (--from)"
      else
        fail "neither curl nor wget is installed to download $FROM/$1" "download the release yourself and use --from FOLDER"
      fi ;;
    *)
      [ -f "$FROM/$1" ] || fail "$FROM/$1 does not exist" "--from names the folder that holds $tarball and SHA256SUMS"
      cp "$FROM/$1" "$work/$1" ;;
  esac
}
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 "$1" | sed 's/.*= *//'
  else fail "no sha256 program (sha256sum, shasum or openssl) to verify the download"
  fi
}

fetch SHA256SUMS
fetch "$tarball"
expected=$(awk -v name="$tarball" '$2 == name || $2 == "*" name { print $1 }' "$work/SHA256SUMS")
[ -n "$expected" ] || fail "SHA256SUMS from $FROM does not list $tarball"
actual=$(sha256_of "$work/$tarball")
[ "$actual" = "$expected" ] ||
  fail "$tarball from $FROM does not match SHA256SUMS (sha256 $actual, expected $expected)" \
    "nothing was installed; download it again, or check where --from points"

mkdir -p "$PREFIX" || fail "cannot create $PREFIX" "choose another with --prefix"
PREFIX=$(cd "$PREFIX" && pwd)
# Unpacked beside its destination, so each part is put in place by a rename on one file system.
stage=$(mktemp -d "$PREFIX/.cudaenv-install.XXXXXX") || fail "cannot write in $PREFIX" "choose another with --prefix"
trap 'rm -rf "$work" "$stage"' EXIT
tar -xzf "$work/$tarball" -C "$stage" || fail "$tarball could not be unpacked"
new="$stage/cudaenv-$VERSION-linux-$arch"
[ -x "$new/bin/cudaenv" ] || fail "$tarball does not hold bin/cudaenv"

# cudaenv's own folders are replaced whole; single files beside others' (bin/, completions) one by one.
for dir in libexec/cudaenv share/cudaenv share/doc/cudaenv; do
  [ -d "$new/$dir" ] || continue
  mkdir -p "$PREFIX/$(dirname "$dir")"
  [ ! -e "$PREFIX/$dir" ] || mv "$PREFIX/$dir" "$stage/old-$(echo "$dir" | tr / -)"
  mv "$new/$dir" "$PREFIX/$dir"
done
(cd "$new" && find bin share -type f) | while read -r file; do
  mkdir -p "$PREFIX/$(dirname "$file")"
  mv -f "$new/$file" "$PREFIX/$file"
done

cudaenv="$PREFIX/bin/cudaenv"
echo "installed $("$cudaenv" --version) in $PREFIX"
# Shims are hard links to (or copies of) the shim: an upgrade makes them anew.
if [ -d "${CUDAENV_ROOT:-$HOME/.cudaenv}/shims" ]; then
  "$cudaenv" rehash >/dev/null || echo "cudaenv-install: warning: run \`cudaenv rehash\` to update the shims" >&2
fi
case "$(basename "${SHELL:-sh}")" in
  zsh) rc="~/.zshrc" line="eval \"\$($cudaenv init zsh)\"" ;;
  fish) rc="~/.config/fish/config.fish" line="$cudaenv init fish | source" ;;
  *) rc="~/.bashrc" line="eval \"\$($cudaenv init bash)\"" ;;
esac
echo "add this line to $rc, then open a new shell:"
echo "  $line"
