# A shared, read-only CUDAENV_SHARED_ROOT (as an admin would set up /opt/cudaenv) used by
# a user without write access: versions, exec and shims work, the user's own install (from a
# mirror folder) lands in the user's root, and nothing is written there.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to act as another user (runs as root in CI)"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"
chmod 755 "$WORK"
setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CUDAENV" ||
  skip "user nobody cannot run $CUDAENV (the build folder is not world-readable)"

SHARED="$WORK/opt-cudaenv"
make_fake_toolkit "$SHARED/versions/12.4.1" 12.4.1
make_fake_toolkit "$SHARED/versions/11.8.0" 11.8.0
chmod -R a+rX,go-w "$SHARED"
snapshot() { find "$SHARED" -printf '%p %M %s %T@\n' | sort; }

USER_HOME="$WORK/user"
mkdir -p "$USER_HOME/proj"
chown -R 65534:65534 "$USER_HOME"
as_user() {  # runs "$@" as nobody with its own HOME and root, and the shared root
  setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$USER_HOME" CUDAENV_ROOT="$USER_HOME/.cudaenv" \
    CUDAENV_SHARED_ROOT="$SHARED" PATH="$USER_HOME/.cudaenv/shims:$PATH" "$@"
}

run_capture as_user "$CUDAENV" versions
assert_eq 0 "$STATUS" "versions as the user: $ERR"
assert_contains "$OUT" "12.4.1 (shared: $SHARED/versions)" "shared toolkits are listed with where they come from"
check "the user's run wrote nothing there" test ! -e "$SHARED/cache"
run_capture env CUDAENV_SYSTEM_ROOT="$SHARED" "$CUDAENV" versions
assert_contains "$OUT" "12.4.1 (shared: $SHARED/versions)" "the old name CUDAENV_SYSTEM_ROOT still names the shared root"
before=$(snapshot)
run_capture as_user "$CUDAENV" rehash
assert_eq 0 "$STATUS" "rehash as the user: $ERR"
check "the user's shims cover the shared toolkits" test -e "$USER_HOME/.cudaenv/shims/nvcc"
run_capture as_user sh -c "cd '$USER_HOME/proj' && '$CUDAENV' use 11.8 && nvcc --version"
assert_contains "$OUT" "release 11.8" "a project pins a shared toolkit and its shim runs it"
run_capture as_user sh -c "cd '$USER_HOME/proj' && '$CUDAENV' exec -- sh -c 'echo \$CUDA_HOME'"
assert_eq "$SHARED/versions/11.8.0" "$OUT" "exec gives the shared toolkit's environment"
run_capture as_user "$CUDAENV" global 12.4
assert_eq 0 "$STATUS" "global as the user writes the user's own root"
check "the user's global file" test -f "$USER_HOME/.cudaenv/version"

# The user's own toolkit of the same name shadows the shared one.
make_fake_toolkit "$WORK/mine" 12.4.1
chmod -R a+rX "$WORK/mine"
run_capture as_user "$CUDAENV" add "$WORK/mine"
run_capture as_user "$CUDAENV" prefix 12.4.1
assert_eq "$WORK/mine" "$OUT" "the user's 12.4.1 wins over the shared one"

# The admin's mirror folder, made by `mirror sync`: the user installs from it into their own root.
add_fake_release 12.1.1
SITE="$WORK/site-mirror"
run_capture "$CUDAENV" mirror sync 12.1.1 --to "$SITE" --mirror "file://$MIRROR_ROOT" --skip-manifest-pin --platform linux-x86_64
assert_eq 0 "$STATUS" "the admin syncs a mirror folder: $ERR"
chmod -R a+rX "$SITE"
run_capture as_user "$CUDAENV" install 12.1 --mirror "file://$SITE" --skip-manifest-pin --platform linux-x86_64
assert_eq 0 "$STATUS" "the user installs from the file:// mirror: $ERR"
check "into the user's own root" test -x "$USER_HOME/.cudaenv/versions/12.1.1/bin/nvcc"
run_capture as_user sh -c "cd '$USER_HOME/proj' && '$CUDAENV' use 12.1.1 && nvcc --version"
assert_contains "$OUT" "release 12.1" "the user's installed toolkit runs through the shim"

assert_eq "$before" "$(snapshot)" "nothing under the shared root changed"
finish
