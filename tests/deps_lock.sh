#!/usr/bin/env bash
# A check of `make deps` outside make test (which stays hermetic: it must not take the
# machine's package lock): while another process holds dpkg's lock, `make deps-test` waits,
# says what it waits for, and installs once the lock is free. Needs root and the package
# mirror. Usage: tests/deps_lock.sh [SECONDS]   (how long the lock is held; default 6)
set -uo pipefail
hold=${1:-6}
[ "$(id -u)" = 0 ] || { echo "deps_lock: needs root" >&2; exit 2; }
log=$(mktemp)
python3 - "$hold" <<'PY' &
import fcntl, sys, time
f = open("/var/lib/dpkg/lock-frontend", "w")
fcntl.lockf(f, fcntl.LOCK_EX)  # the lock apt and dpkg take, as an install would hold it
open("/tmp/dps-deps-lock-held", "w").close()
time.sleep(float(sys.argv[1]))
PY
holder=$!
while [ ! -e /tmp/dps-deps-lock-held ]; do sleep 0.1; done
t0=$(date +%s)
make --no-print-directory deps-test >"$log" 2>&1
status=$? t=$(($(date +%s) - t0))
wait "$holder"; rm -f /tmp/dps-deps-lock-held
cat "$log"
fail=0
[ "$status" = 0 ] || { echo "deps_lock: make deps-test failed (status $status)"; fail=1; }
grep -q "Waiting for cache lock\|waiting for it" "$log" || { echo "deps_lock: nothing said it waited for the lock"; fail=1; }
[ "$t" -ge $((hold - 1)) ] || { echo "deps_lock: done in $t s, before the lock was released ($hold s)"; fail=1; }
rm -f "$log"
[ "$fail" = 0 ] && echo "deps_lock: make deps-test waited $t s for a lock held $hold s, then installed"
exit "$fail"
