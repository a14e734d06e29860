# The x86_64 release on Debian 11 as a user without root, and without anything cudaenv builds
# with: the wheel through pip (a venv, offline; --user), uv and pipx; the tarball through
# cudaenv-install.sh (a folder, a URL, a tampered tarball, an upgrade in place). Each install
# then serves a stand-in toolkit: add, use, nvcc through the shim, the bash hook on cd, doctor.
# Then `install 13.2 --source pypi` from a loopback index, CA certificates against PyPI (none
# found, then the host's bundle), and the real nvcc compiling a .cu through the shim.
. "$(dirname "$0")/lib_chroot.sh"
WHEEL=cudaenv-$VERSION-py3-none-manylinux_2_28_x86_64.whl
[ -f "$RELEASE/$WHEEL" ] || fail "$RELEASE has no $WHEEL"
setup_chroot

# The wheel into a fresh venv, offline (no index at all).
as_user venv "python3 -m venv venv && venv/bin/pip install --no-index -q /release/$WHEEL
  test -x venv/libexec/cudaenv/cudaenv-shim && test -d venv/share/cudaenv/manifests && venv/bin/cudaenv --version"
assert_eq 0 "$STATUS" "pip install of the wheel into a venv, offline: $ERR"
assert_contains "$OUT" "$VERSION" "the venv's cudaenv runs"
toolkit_checks venv /home/user/venv/venv/bin/cudaenv

# pip --user: ~/.local, the tarball's layout.
as_user pip-user "pip3 install --user --no-index -q /release/$WHEEL && ~/.local/bin/cudaenv --version"
assert_eq 0 "$STATUS" "pip install --user: $ERR"
toolkit_checks pip-user /home/user/pip-user/.local/bin/cudaenv

# uv tool install and pipx install: uv and pipx themselves come from PyPI.
install_host_ca_bundle
if pypi_reachable; then
  as_user tools "python3 -m venv tools && tools/bin/pip install -q --cert /etc/ssl/certs/ca-certificates.crt uv pipx"
  assert_eq 0 "$STATUS" "uv and pipx from PyPI: $ERR"
  as_user uv "/home/user/tools/tools/bin/uv tool install --offline /release/$WHEEL && ls -l ~/.local/bin/cudaenv"
  assert_eq 0 "$STATUS" "uv tool install: $ERR"
  toolkit_checks uv /home/user/uv/.local/bin/cudaenv
  as_user pipx "PIP_CERT=/etc/ssl/certs/ca-certificates.crt /home/user/tools/tools/bin/pipx install /release/$WHEEL"
  assert_eq 0 "$STATUS" "pipx install: $ERR"
  toolkit_checks pipx /home/user/pipx/.local/bin/cudaenv
else
  echo "PyPI is not reachable: uv and pipx not tried" >&2
fi

# The installer: from the release folder, then again (an upgrade in place, a changed file put
# back and a stale one gone), from a URL, and a tampered tarball refused.
as_user tarball "sh /release/cudaenv-install.sh --from /release"
assert_eq 0 "$STATUS" "cudaenv-install.sh --from /release: $ERR"
assert_contains "$OUT" "installed cudaenv $VERSION in /home/user/tarball/.local" "the installer reports"
assert_contains "$OUT" "  eval \"\$(/home/user/tarball/.local/bin/cudaenv init bash)\"" "the one rc line"
toolkit_checks tarball /home/user/tarball/.local/bin/cudaenv
run_capture bash "$SRC/scripts/release/check-portable.sh" --machine x86_64 "$ROOTFS/home/user/tarball/.local"
assert_eq 0 "$STATUS" "the installed programs pass the release's portability check: $ERR"
assert_contains "$OUT" "libexec/cudaenv/cudaenv-shim static" "the shim is static"
echo "$OUT" | sed 's/^/x86_64 needs: /'
MANIFEST=$(ls "$ROOTFS/home/user/tarball/.local/share/cudaenv/manifests" | head -1)
as_user tarball "echo changed >.local/share/cudaenv/manifests/$MANIFEST; touch .local/libexec/cudaenv/stale
  sh /release/cudaenv-install.sh --from /release >/dev/null
  test ! -e .local/libexec/cudaenv/stale && ! grep -qx changed .local/share/cudaenv/manifests/$MANIFEST
  [ ~/.cudaenv/shims/nvcc -ef .local/libexec/cudaenv/cudaenv-shim ] && cd proj && ~/.cudaenv/shims/nvcc --version |
    grep -c 'release 12.4'"
assert_eq 0 "$STATUS" "a second run upgrades in place: $ERR"
assert_eq 1 "$OUT" "the shims are the new shim after the upgrade, and work"
python3 -m http.server --bind 127.0.0.1 --directory "$ROOTFS/release" 0 >"$WORK/http.log" 2>&1 &
HTTP=$!
wait_until 10 grep -q "port" "$WORK/http.log"
PORT=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$WORK/http.log" | head -1)
as_user url "sh /release/cudaenv-install.sh --from http://127.0.0.1:$PORT --prefix ~/opt && ~/opt/bin/cudaenv --version"
assert_eq 0 "$STATUS" "cudaenv-install.sh from a URL: $ERR"
kill "$HTTP"
as_user tampered "mkdir bad && cp /release/* bad/ && printf x >>bad/cudaenv-$VERSION-linux-x86_64.tar.gz
  sh /release/cudaenv-install.sh --from bad"
assert_eq 1 "$STATUS" "a tampered tarball is refused"
assert_contains "$ERR" "does not match SHA256SUMS" "the installer says why"
check "nothing installed from a tampered tarball" test ! -e "$ROOTFS/home/user/tampered/.local/bin"

# install --source pypi from a loopback index of small wheels (tests/support/cuda_wheel_index.py).
serve_wheel_index tarball
as_user tarball ".local/bin/cudaenv install 13.2 --source pypi --index-url http://127.0.0.1:$PORT/simple 2>&1 | tail -1
  .local/bin/cudaenv versions --bare"
assert_eq 0 "$STATUS" "install 13.2 --source pypi from the loopback index: $ERR"
assert_contains "$OUT" "13.2.1" "13.2.1 installed and listed"

# CA certificates: with no bundle on the system the error names every place looked; with the
# host's bundle (this network re-signs TLS) PyPI answers over https.
mv "$ROOTFS/etc/ssl/certs" "$ROOTFS/etc/ssl/certs.away"
as_user tarball ".local/bin/cudaenv list-remote --source pypi --index-url https://pypi.org/simple --bare"
assert_eq 1 "$STATUS" "no CA certificates anywhere"
assert_contains "$ERR" "no CA certificates were found" "the error says none was found"
assert_contains "$ERR" "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem" "and names the places looked"
assert_contains "$ERR" "set SSL_CERT_FILE" "and the variable to set"
mv "$ROOTFS/etc/ssl/certs.away" "$ROOTFS/etc/ssl/certs"
install_host_ca_bundle
if pypi_reachable; then
  as_user tarball ".local/bin/cudaenv list-remote --source pypi --index-url https://pypi.org/simple --bare | head -3"
  assert_eq 0 "$STATUS" "list-remote from PyPI over https with the system's bundle: $ERR"
  assert_contains "$OUT" "13." "PyPI's CUDA 13 releases listed"
fi

# The real nvcc (CUDA 13.0, read-only) compiling a .cu through the shim with the chroot's g++.
if [ -x "$ROOTFS/usr/local/cuda-13.0/bin/nvcc" ]; then
  as_user tarball ".local/bin/cudaenv add /usr/local/cuda-13.0 >/dev/null 2>&1
    mkdir -p real && cd real && ~/.local/bin/cudaenv use 13.0 >/dev/null 2>&1
    printf '__global__ void k(int* p) { p[threadIdx.x] = 1; }\nint main() { k<<<1, 1>>>(nullptr); }\n' >k.cu
    ~/.cudaenv/shims/nvcc -o k k.cu && test -x k && ~/.cudaenv/shims/nvcc --version | tail -2 | head -1
    ~/.local/bin/cudaenv doctor 2>&1 | head -40"
  assert_eq 0 "$STATUS" "the real nvcc compiles through the shim: $ERR"
  assert_contains "$OUT" "release 13.0" "the shim runs CUDA 13.0's nvcc"
  assert_contains "$OUT" "13.0" "doctor reports the real toolkit"
else
  echo "/usr/local/cuda-13.0 is not here: the real nvcc is not tried" >&2
fi
finish
