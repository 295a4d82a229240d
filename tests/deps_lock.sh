#!/usr/bin/env bash
# A check of `make deps` outside make test (which stays hermetic: it must not take the
# machine's package lock): while another process holds dpkg's lock, `make deps-test` waits,
# says what it waits for, and installs once the lock is free. Needs root and the package
# mirror. Usage: tests/deps_lock.sh [SECONDS]   (the longest the lock is held; default 120)
#
# The lock is held until make deps-test says it waits (or SECONDS pass), then let go: how
# long `apt-get update` takes first is the mirror's affair, and a lock let go at a fixed
# time could be free again before the install ever asked for it.
set -uo pipefail
hold=${1:-120}
[ "$(id -u)" = 0 ] || { echo "deps_lock: needs root" >&2; exit 2; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
python3 - "$hold" "$t" <<'PY' &
import fcntl, os, sys, time
f = open("/var/lib/dpkg/lock-frontend", "w")
fcntl.lockf(f, fcntl.LOCK_EX)  # the lock apt and dpkg take, as an install would hold it
open(os.path.join(sys.argv[2], "held"), "w").close()
end = time.time() + float(sys.argv[1])
while time.time() < end and not os.path.exists(os.path.join(sys.argv[2], "release")):
    time.sleep(0.1)
PY
holder=$!
while [ ! -e "$t/held" ]; do sleep 0.1; done
make --no-print-directory deps-test >"$t/log" 2>&1 &
make_pid=$!
waited=
for _ in $(seq $((hold * 10))); do
    grep -q "Waiting for cache lock\|waiting for it" "$t/log" && { waited=1; break; }
    kill -0 "$make_pid" 2>/dev/null || break
    sleep 0.1
done
touch "$t/release"
wait "$holder"
wait "$make_pid"
status=$?
cat "$t/log"
fail=0
[ "$status" = 0 ] || { echo "deps_lock: make deps-test failed (status $status)"; fail=1; }
[ -n "$waited" ] || { echo "deps_lock: nothing said it waited for the lock"; fail=1; }
[ "$fail" = 0 ] && echo "deps_lock: make deps-test said it waited for the lock, and installed once it was let go"
exit "$fail"
