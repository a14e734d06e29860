# https with CA certificates cudaenv names itself (src/install/ca_certificates.h): a loopback
# package index behind a certificate of this test's own CA, which the system's bundle does not
# trust. SSL_CERT_FILE, SSL_CERT_DIR, CURL_CA_BUNDLE and pip's `cert` each make it trusted; an
# untrusted server's error says which certificates were checked and what to set.
. "$(dirname "$0")/lib.sh"
unset PIP_INDEX_URL PIP_CERT VIRTUAL_ENV XDG_CONFIG_HOME XDG_CONFIG_DIRS SSL_CERT_FILE SSL_CERT_DIR \
  CURL_CA_BUNDLE
export PIP_CONFIG_FILE=/dev/null  # no pip files (this machine's /etc/pip.conf may name a cert) until pip's part
command -v openssl >/dev/null || skip "openssl (the program) is not installed: apt-get install openssl"

TLS="$WORK/tls"
mkdir -p "$TLS/certs"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=cudaenv test CA" -keyout "$TLS/ca.key" -out "$TLS/ca.pem" \
  2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$TLS/server.key" -out "$TLS/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$TLS/san"
openssl x509 -req -in "$TLS/server.csr" -CA "$TLS/ca.pem" -CAkey "$TLS/ca.key" -CAcreateserial -days 2 \
  -extfile "$TLS/san" -out "$TLS/server.pem" 2>/dev/null
cp "$TLS/ca.pem" "$TLS/certs/$(openssl x509 -hash -noout -in "$TLS/ca.pem").0"  # a hashed folder

INDEX_ROOT="$WORK/index"
wheels() { python3 "$SRC/tests/support/cuda_wheel_index.py" "$INDEX_ROOT" "$@"; }
wheels release 13.2.1 13.2.75
wheels pages
python3 "$SRC/tests/support/tls_server.py" "$INDEX_ROOT" "$TLS/server.pem" "$TLS/server.key" "$WORK/port" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
wait_until 10 test -s "$WORK/port"
INDEX="https://127.0.0.1:$(cat "$WORK/port")/simple"
list() { run_capture env "$@" "$CUDAENV" list-remote --source pypi --index-url "$INDEX" --bare; }

list
assert_eq 1 "$STATUS" "the system's bundle does not trust the test CA"
assert_contains "$ERR" "the certificates checked against were /etc/ssl/certs/ca-certificates.crt" \
  "the error names the certificates checked"
assert_contains "$ERR" "set SSL_CERT_FILE to a PEM bundle that has it" "and the variable to set"
assert_contains "$ERR" "$INDEX" "and the URL"

for variable in SSL_CERT_FILE="$TLS/ca.pem" SSL_CERT_DIR="$TLS/certs" CURL_CA_BUNDLE="$TLS/ca.pem"; do
  list "$variable"
  assert_eq 0 "$STATUS" "$variable trusts the index: $ERR"
  assert_eq 13.2.1 "$OUT" "$variable: the index's release listed"
done
list SSL_CERT_FILE="$TLS/missing.pem"
assert_eq 1 "$STATUS" "SSL_CERT_FILE naming no file"
assert_contains "$ERR" "checked against were SSL_CERT_FILE=$TLS/missing.pem" "is named, not passed over"

# pip's cert, from its file (the user's, after any /etc/pip.conf) or PIP_CERT, for --source pypi,
# over the variables, as pip does.
unset PIP_CONFIG_FILE
mkdir -p "$HOME/.config/pip"
printf '[global]\ncert = %s\n' "$TLS/ca.pem" >"$HOME/.config/pip/pip.conf"
run_capture env SSL_CERT_FILE="$TLS/missing.pem" "$CUDAENV" install 13.2 --source pypi --index-url "$INDEX" --platform linux-x86_64
assert_eq 0 "$STATUS" "install over https with pip's cert: $ERR"
check "installed from the https index" test -x "$CUDAENV_ROOT/versions/13.2.1/bin/nvcc"
printf '[global]\ncert = %s\n' "$TLS/missing.pem" >"$HOME/.config/pip/pip.conf"
list
assert_eq 2 "$STATUS" "pip's cert naming no file"
assert_contains "$ERR" "pip's CA bundle cert = $TLS/missing.pem in $HOME/.config/pip/pip.conf is not a file" \
  "the error names pip's setting and its file"
list PIP_CERT="$TLS/ca.pem"
assert_eq 0 "$STATUS" "PIP_CERT over pip's file: $ERR"
finish
