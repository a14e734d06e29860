#!/usr/bin/env bash
# Sets cudaenv up on a Debian 12 machine: the build dependencies (apt), a Release build,
# an install under PREFIX (default ~/.local), registration of the CUDA toolkits already
# on the machine, and the one line to add to your shell's rc file.
#   ./install.sh                 PREFIX=/opt/cudaenv ./install.sh
set -euo pipefail
cd "$(dirname "$0")"
PREFIX=${PREFIX:-$HOME/.local}
BUILD_DIR=${BUILD_DIR:-build-release}

scripts/ensure-apt-packages.sh build
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DCMAKE_INSTALL_PREFIX="$PREFIX" >/dev/null
cmake --build "$BUILD_DIR"
cmake --install "$BUILD_DIR" >/dev/null
CUDAENV="$PREFIX/bin/cudaenv"
echo "installed $("$CUDAENV" --version) in $PREFIX"

# Toolkits that are already here become selectable; a name clash is reported, not fatal.
"$CUDAENV" add --scan || true
# Shims are links to the shim binary just installed.
"$CUDAENV" rehash
"$CUDAENV" versions

shell_name=$(basename "${SHELL:-bash}")
case "$shell_name" in
  fish) rc=.config/fish/config.fish; line="$CUDAENV init fish | source"; shell_name=fish ;;
  zsh) rc=.zshrc; line="eval \"\$($CUDAENV init zsh)\"" ;;
  *) rc=.bashrc; line="eval \"\$($CUDAENV init bash)\""; shell_name=bash ;;
esac
echo
if grep -qsF "$CUDAENV init $shell_name" "$HOME/$rc"; then
  echo "~/$rc already sets cudaenv up; open a new shell to use this build."
else
  echo "Last step: add this line to ~/$rc, then open a new shell:"
  echo "  $line"
fi
case ":${PATH-}:" in
  *":$PREFIX/bin:"*) ;;
  *) echo "Note: $PREFIX/bin is not on your PATH. \`cudaenv init\` in your rc file puts it there for"
     echo "  your shell and what it starts; elsewhere (cron, IDEs) call $CUDAENV by its full path." ;;
esac
