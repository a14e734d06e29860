# A work folder (.staging-, .old-, .removing-) is stale when no process holds its label's
# install lock, whatever its PID suffix says (PIDs mean nothing across namespaces and hosts).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_install.sh"

add_fake_release 12.1.1
start_mirror
mkdir -p "$CUDAENV_ROOT/versions" "$CUDAENV_ROOT/locks"
# PID 1 is alive, but nothing holds 12.4.1's lock: stale.
mkdir -p "$CUDAENV_ROOT/versions/.staging-12.4.1-1/bin"
# PID 999999999 is no process here, but another host (or namespace) holds 12.2.0's lock.
mkdir -p "$CUDAENV_ROOT/versions/.staging-12.2.0-999999999/bin" "$CUDAENV_ROOT/versions/.removing-12.2.0-999999999"
python3 - "$CUDAENV_ROOT/locks/install-12.2.0" "$WORK/locked" <<'PY' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.lockf(fd, fcntl.LOCK_EX)  # a POSIX record lock: it conflicts with cudaenv's OFD lock
open(sys.argv[2], "w").close()
time.sleep(300)
PY
HOLDER=$!
wait_until 10 test -e "$WORK/locked"
check "the other install holds its lock" test -e "$WORK/locked"

install_from_mirror 12.1.1
assert_eq 0 "$STATUS" "install: $ERR"
check "an unlocked work folder is removed, though its PID is alive" test ! -e "$CUDAENV_ROOT/versions/.staging-12.4.1-1"
assert_contains "$ERR" "removing stale $CUDAENV_ROOT/versions/.staging-12.4.1-1" "it says what it removes"
check "a locked work folder is kept, though its PID is gone" test -d "$CUDAENV_ROOT/versions/.staging-12.2.0-999999999"
check "so is the locked label's .removing- folder" test -d "$CUDAENV_ROOT/versions/.removing-12.2.0-999999999"

kill "$HOLDER"
wait "$HOLDER" 2>/dev/null
install_from_mirror 12.1.1 --force
assert_eq 0 "$STATUS" "install again: $ERR"
check "once the lock is free, its work folders are stale" test ! -e "$CUDAENV_ROOT/versions/.staging-12.2.0-999999999"
check "all of them" test ! -e "$CUDAENV_ROOT/versions/.removing-12.2.0-999999999"

finish
