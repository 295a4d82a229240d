#!/usr/bin/env bash
# make fresh-check: the README's two commands on fresh Debian machines, as a new user meets
# them. For each suite (Debian 12 bookworm and Debian 13 trixie by default):
#
#   1. a minimal root made by debootstrap from Debian's packages (--variant=minbase), with
#      git and make added and nothing else, cached in FRESH_DIR/SUITE.base between runs
#      (FRESH_DIR is /var/tmp/dps-fresh-check, outside the tree, whose make clean a user
#      could not do past root's files; FRESH_REFRESH=1 makes the roots again);
#   2. a copy of it, into which HEAD is cloned (a git bundle: what is committed, nothing
#      else);
#   3. the two commands, `make chapter5 && ./ring --n_gpus 4` and `make test`, twice in
#      separate clones: once starting from nothing, which installs what the commands need,
#      and once more after that, with the packages in place, by an ordinary user without
#      sudo. On bookworm the first is root's; on trixie an ordinary user's with sudo (the
#      packages installed through it). So both ways of starting from nothing are covered,
#      and on both suites a user who can install nothing finds what is installed enough
#      (on trixie that user's clone makes its own clang-format 14, which needs no root).
#
# Each command runs in the root through chroot, inside a mount and PID namespace of its own
# (unshare): /proc, /sys, /dev and /dev/shm are mounted there and vanish with it, and every
# process the check started ends with it. The network is the machine's (apt and PyPI), and
# so is its trust: the machine's CA bundle is handed to pip (PIP_CERT), since some networks
# (this project's among them, and many a campus's) intercept TLS with a CA of their own,
# which a fresh root's pip would refuse.
# Prints each step's time; exits non-zero on the first failure, with the log's end.
#
#   scripts/fresh_check.sh [SUITE...]      (root; FRESH_MIRROR, FRESH_DIR, FRESH_REFRESH)
#   scripts/fresh_check.sh --one           .ci/run's form: one suite as above, and of the
#                                          other only the first command from nothing (its
#                                          root made, the packages installed, chapter 5 run).
#                                          The suite run whole is bookworm when HEAD's commit
#                                          count (git rev-list --count HEAD) is even, trixie
#                                          when it is odd, so consecutive commits cover both;
#                                          make ci-full runs both whole.
#   scripts/fresh_check.sh --roots         only the cached roots of both suites, made when
#                                          missing: .ci/run starts it beside its first
#                                          stages, so that a cold machine's debootstrap
#                                          (about 60 s a suite, mostly the network's) is
#                                          done by the time fresh-check needs the roots.
#                                          A root is made under a lock ($dir/SUITE.lock):
#                                          a check that needs it meanwhile waits for it.
set -uo pipefail
cd "$(dirname "$0")/.."
suites=("$@") first_only= roots_only=
if [ "${1:-}" = --roots ]; then
    roots_only=1 suites=(bookworm trixie)
elif [ "${1:-}" = --one ]; then
    count=$(git rev-list --count HEAD 2>/dev/null) || { echo "fresh-check: --one needs a git tree (HEAD's commit count)" >&2; exit 2; }
    if [ $((count % 2)) = 0 ]; then suites=(bookworm trixie) first_only=trixie
    else suites=(trixie bookworm) first_only=bookworm; fi
    echo "fresh-check: HEAD is commit $count ($([ $((count % 2)) = 0 ] && echo even || echo odd)): $first_only runs the first command only, ${suites[0]} both"
fi
[ ${#suites[@]} -gt 0 ] || suites=(bookworm trixie)
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}
dir=${FRESH_DIR:-/var/tmp/dps-fresh-check}
[ "$(id -u)" = 0 ] || { echo "fresh-check: needs root (debootstrap, chroot, namespaces)" >&2; exit 2; }
command -v debootstrap >/dev/null || scripts/deps.sh "make fresh-check" debootstrap || exit 1
for tool in debootstrap unshare chroot git; do
    command -v $tool >/dev/null || { echo "fresh-check: $tool missing: apt-get install debootstrap util-linux git" >&2; exit 2; }
done
mkdir -p "$dir" || exit 1
dir=$(cd "$dir" && pwd)

# What is checked is HEAD, committed: say so when the tree holds more.
if [ -z "$roots_only" ]; then
    git diff --quiet HEAD -- 2>/dev/null && [ -z "$(git ls-files --others --exclude-standard)" ] ||
        echo "fresh-check: warning: the tree has changes that are not committed; the check clones HEAD ($(git rev-parse --short HEAD)) without them" >&2
    git bundle create "$dir/head.bundle" HEAD >/dev/null 2>&1 || { echo "fresh-check: git bundle failed" >&2; exit 1; }
fi

t_all=$(date +%s)
step() { # step NAME LOG COMMAND...: run it, print its time, stop the check when it fails
    local name=$1 log=$2 t0 rc
    shift 2
    t0=$(date +%s)
    "$@" >"$log" 2>&1
    rc=$?
    printf 'fresh-check: %-58s %4d s  %s\n' "$name" "$(($(date +%s) - t0))" "$([ $rc = 0 ] && echo ok || echo "FAILED (exit $rc)")"
    if [ $rc != 0 ]; then
        tail -25 "$log" | sed 's/^/    /'
        echo "fresh-check: $name failed; the whole log is $log" >&2
        exit 1
    fi
}

# in_root ROOT USER COMMAND: COMMAND (a shell line) as USER (root or student), in ROOT's
# home of that user, in namespaces of its own.
in_root() {
    local root=$1 user=$2 cmd=$3 home=/root spec=0:0
    [ "$user" = root ] || { home=/home/$user; spec=$(chroot "$root" id -u "$user"):$(chroot "$root" id -g "$user"); }
    unshare --mount --pid --fork --kill-child /bin/sh -c '
        set -e
        root=$1 spec=$2 home=$3 cmd=$4 user=$5
        mount --make-rprivate /
        mount -t proc proc "$root/proc"
        mount -t sysfs sys "$root/sys"
        mount --rbind /dev "$root/dev"
        mount -t tmpfs -o mode=1777 shm "$root/dev/shm"
        cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
        ca=; [ ! -f /etc/ssl/certs/ca-certificates.crt ] || ca=/etc/ssl/fresh-check-ca.pem
        [ -z "$ca" ] || { mkdir -p "$root/etc/ssl" && cp /etc/ssl/certs/ca-certificates.crt "$root$ca"; }
        proxies=$(env | grep -iE "^(http|https|no)_proxy=" || true)
        exec chroot --userspec="$spec" "$root" /usr/bin/env -i HOME="$home" USER="$user" \
            LOGNAME="$user" TERM=dumb LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            ${ca:+PIP_CERT=$ca} $proxies /bin/bash -c "cd \"$home\" && $cmd"' sh "$root" "$spec" "$home" "$cmd" "$user"
}

# The two commands of the README, in a clone of HEAD of the user's own; TAG names the logs.
# In the suite that --one runs in part, the first command alone.
readme_commands() {
    local root=$1 user=$2 tag=$3 name=$4
    step "$name: git clone" "$dir/$suite.$tag.clone.log" \
        in_root "$root" "$user" "rm -rf dps && git clone -q /tmp/head.bundle dps"
    step "$name: make chapter5 && ./ring --n_gpus 4" "$dir/$suite.$tag.chapter5.log" \
        in_root "$root" "$user" "cd dps && make chapter5 && ./ring --n_gpus 4"
    [ "$suite" != "$first_only" ] || return 0
    step "$name: make test" "$dir/$suite.$tag.test.log" \
        in_root "$root" "$user" "cd dps && make test"
    # Each test's seconds, for a look at where a suite's time went.
    cp "$root$([ "$user" = root ] && echo /root || echo "/home/$user")/dps/build/tests/book.tap" \
        "$dir/$suite.$tag.test.tap" 2>/dev/null || true
    grep -h -e '^\[====\] Synthesis' -e '^prove: ' -e '^test: .*skipped' -e '^ *[0-9][0-9]*  ' \
        "$dir/$suite.$tag.test.log" | sed "s/^/fresh-check:   /"
}

# The cached root of suite $1, made when missing (or with FRESH_REFRESH), under the suite's
# lock: a check that starts while another makes it waits, then finds it made.
make_base() {
    local suite=$1 base=$dir/$1.base lock
    exec {lock}>"$dir/$suite.lock" && flock "$lock" || { echo "fresh-check: $suite: no lock $dir/$suite.lock" >&2; exit 1; }
    if [ -n "${FRESH_REFRESH:-}" ] || [ ! -f "$base/.fresh-made" ]; then
        rm -rf "$base"
        step "$suite: debootstrap (minbase, git and make)" "$dir/$suite.debootstrap.log" \
            debootstrap --variant=minbase --include=git,make "$suite" "$base" "$mirror"
        touch "$base/.fresh-made"
    else
        echo "fresh-check: $suite: the cached root $base (FRESH_REFRESH=1 makes it again)"
    fi
    exec {lock}>&-
}

# One suite: its root, then the README's commands in it (step exits on a failure).
run_suite() {
    local suite=$1 base root
    base=$dir/$suite.base root=$dir/$suite.root
    make_base "$suite"
    rm -rf "$root"
    step "$suite: a copy of the root" "$dir/$suite.copy.log" cp -a "$base" "$root"
    cp "$dir/head.bundle" "$root/tmp/head.bundle" && chmod 644 "$root/tmp/head.bundle"
    chroot "$root" useradd -m -s /bin/bash student || exit 1
    chroot "$root" useradd -m -s /bin/bash reader || exit 1
    case $suite in
    trixie)
        step "$suite: sudo for student (as an admin gives it)" "$dir/$suite.sudo.log" \
            in_root "$root" root "apt-get update -qq && apt-get install -y -qq sudo >/dev/null && echo 'student ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/student"
        readme_commands "$root" student user-sudo "$suite, a user with sudo, from nothing"
        ;;
    *)
        readme_commands "$root" root root "$suite, root, from nothing"
        ;;
    esac
    [ "$suite" = "$first_only" ] ||
        readme_commands "$root" reader user-after "$suite, a user without sudo, once installed"
    rm -rf "$root"
}

if [ -n "$roots_only" ]; then
    pids=() rc=0
    for suite in "${suites[@]}"; do make_base "$suite" & pids+=($!); done
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    [ $rc = 0 ] || exit 1
    echo "fresh-check: the roots of ${suites[*]} are ready ($(($(date +%s) - t_all)) s)"
    exit 0
fi

# With --one, the other suite's first command runs beside the whole one (it is mostly the
# network's: debootstrap and apt), its lines shown when both are done.
part=
if [ -n "$first_only" ]; then
    run_suite "$first_only" >"$dir/$first_only.part.out" 2>&1 &
    part=$!
    trap '[ -z "$part" ] || kill "$part" 2>/dev/null' EXIT
fi
for suite in "${suites[@]}"; do
    [ "$suite" = "$first_only" ] || run_suite "$suite"
done
if [ -n "$part" ]; then
    wait "$part"
    rc=$?
    part=
    cat "$dir/$first_only.part.out"
    [ $rc = 0 ] || exit 1
fi
echo "fresh-check: passed on ${suites[*]}$([ -z "$first_only" ] || echo " ($first_only: the first command only)") in $(($(date +%s) - t_all)) s"
