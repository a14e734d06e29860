# A mirror made by `mirror sync`, served by a real nginx on 127.0.0.1: install and list-remote
# over http, and a damaged archive caught by install. A plain copy of the redist layout without
# an index, behind nginx autoindex, is discovered from its listing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"
. "$(dirname "$0")/lib_mirror.sh"

NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || skip "nginx is not installed (apt-get install nginx)"

add_fake_release 12.1.1
start_mirror
sync 12.1
assert_eq 0 "$STATUS" "mirror sync from the upstream: $ERR"
stop_mirror

NG="$WORK/nginx"
mkdir -p "$NG"
NGINX_PID=
stop_nginx() { [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null; NGINX_PID=; }
trap 'stop_nginx; stop_mirror; rm -rf "$WORK"' EXIT

start_nginx() {  # on a free port; a port taken between choosing and binding is retried
  local try
  for try in 1 2 3 4 5; do
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat >"$NG/nginx.conf" <<CONF
$([ "$(id -u)" -eq 0 ] && echo "user root;")
worker_processes 1;
pid $NG/nginx.pid;
error_log $NG/error.log;
events { worker_connections 64; }
http {
  access_log $NG/access.log;
  client_body_temp_path $NG/body;
  proxy_temp_path $NG/proxy;
  fastcgi_temp_path $NG/fastcgi;
  uwsgi_temp_path $NG/uwsgi;
  scgi_temp_path $NG/scgi;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$PORT;
    root $LOCAL;
    location /plain/ {
      alias $MIRROR_ROOT/;
      autoindex on;
    }
  }
}
CONF
    "$NGINX" -e "$NG/error.log" -p "$NG" -c "$NG/nginx.conf" -g 'daemon off;' 2>>"$NG/error.log" &
    NGINX_PID=$!
    local i
    for i in $(seq 100); do
      curl -sf -o /dev/null "http://127.0.0.1:$PORT/cudaenv-mirror.json" && return 0
      kill -0 "$NGINX_PID" 2>/dev/null || break
      sleep 0.05
    done
    stop_nginx
  done
  echo "nginx did not start:" >&2
  cat "$NG/error.log" >&2
  return 1
}
check "nginx serves the mirror" start_nginx
URL="http://127.0.0.1:$PORT/"

run_capture "$CUDAENV" list-remote --mirror "$URL" --bare
assert_eq "12.1.1" "$OUT" "list-remote over http lists the mirror's index: $ERR"

run_capture "$CUDAENV" install 12.1 --mirror "$URL" --skip-manifest-pin --platform linux-x86_64
assert_eq 0 "$STATUS" "install from nginx: $ERR"
assert_contains "$ERR" "${URL}redistrib_12.1.1.json" "the manifest came from nginx"
assert_eq 1 "$(grep -c "GET /cuda_nvcc/" "$NG/access.log")" "nginx served the archive"
assert_contains "$(cd "$WORK" && "$CUDAENV" global 12.1.1 && PATH="$CUDAENV_ROOT/shims:$PATH" nvcc --version)" \
  "release 12.1, V12.1.105" "nvcc through the shim prints the version"

# nginx autoindex over a copy without cudaenv-mirror.json: the listing names the releases.
run_capture "$CUDAENV" list-remote --mirror "${URL}plain/" --bare
assert_eq "12.1.1" "$OUT" "list-remote reads nginx's autoindex listing: $ERR"
assert_eq 1 "$(grep -c 'GET /plain/ ' "$NG/access.log")" "one request for the listing"
run_capture "$CUDAENV" install 12.1 --force --mirror "${URL}plain/" --skip-manifest-pin --platform linux-x86_64
assert_eq 0 "$STATUS" "install 12.1 from the autoindexed copy: $ERR"
assert_eq 1 "$(grep -c 'GET /plain/ ' "$NG/access.log")" "the listing came from the cache"

damage "$LOCAL/$(archive_of cuda_cccl 12.1.1)"
run_capture "$CUDAENV" install 12.1.1 --force --mirror "$URL" --skip-manifest-pin --platform linux-x86_64
assert_eq 1 "$STATUS" "install of a damaged archive over http fails"
assert_contains "$ERR" "cuda_cccl: ${URL}$(archive_of cuda_cccl 12.1.1) has sha256" "naming the component and URL"
check "the installed 12.1.1 is kept" test -x "$CUDAENV_ROOT/versions/12.1.1/bin/nvcc"
finish
