#!/usr/bin/env bash
# Install Debian packages for the book, waiting for the package lock when another install
# or an unattended upgrade holds it, instead of failing at once.
#
#   scripts/deps.sh WHAT PACKAGE...      (make deps, deps-test, deps-book; WHAT names the set)
#
# DEPS_WAIT bounds the wait for the lock, in seconds (default 600). As root, or through sudo.
set -uo pipefail
what=${1:?usage: scripts/deps.sh WHAT PACKAGE...}
shift
wait_s=${DEPS_WAIT:-600}
export DEBIAN_FRONTEND=noninteractive

# clang-format-14, where Debian does not carry it (Debian 13 carries 19 and later): PyPI's
# clang-format 14.0.6 wheel, in a virtual environment of the tree's own
# (build/tools/clang-format-14, where the Makefile looks for it), made with Debian's
# python3-venv. It formats exactly as Debian 12's clang-format-14 does, which the drift check
# needs (another version formats otherwise). No root: it is the tree's, not the system's.
wheel_dir=build/tools/clang-format-14
install_wheel() {
    [ -x "$wheel_dir/bin/clang-format" ] && return 0
    rm -rf "$wheel_dir" && mkdir -p build/tools
    { python3 -m venv "$wheel_dir" &&
      "$wheel_dir/bin/pip" install -q --disable-pip-version-check clang-format==14.0.6; } >"$wheel_dir.log" 2>&1 ||
        { tail -5 "$wheel_dir.log" >&2; echo "deps: clang-format 14.0.6 from PyPI failed (above)" >&2; rm -rf "$wheel_dir"; return 1; }
    echo "deps: clang-format 14.0.6 from PyPI, in $wheel_dir (this Debian has no clang-format-14)"
}
installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed$'; }
carried() { apt-cache show --no-all-versions "$1" >/dev/null 2>&1; } # in the package lists

# Without root or sudo nothing comes from Debian, but what is installed already is enough
# when only the wheel is missing (an ordinary user's fresh clone on Debian 13): say what
# root must install, or make the wheel. sudo counts when it needs no password, or when a
# person at a terminal can give one.
can_sudo() { command -v sudo >/dev/null && { sudo -n true 2>/dev/null || [ -t 0 ]; }; }
if [ "$(id -u)" != 0 ] && ! can_sudo; then
    missing=() wheel=
    for p in "$@"; do
        installed "$p" && continue
        if [ "$p" = clang-format-14 ]; then
            [ -x "$wheel_dir/bin/clang-format" ] && continue
            if carried apt && ! carried clang-format-14 && installed python3-venv; then wheel=1; continue; fi
        fi
        missing+=("$p")
    done
    [ ${#missing[@]} = 0 ] || { echo "deps: run as root, or: apt-get install ${missing[*]}" >&2; exit 1; }
    [ -z "$wheel" ] || install_wheel || exit 1
    echo "deps: $what: everything needed is installed"
    exit 0
fi
sudo=; [ "$(id -u)" = 0 ] || sudo=sudo

# apt-get "$@", retried while the lock is held (the lock of the package lists, or dpkg's),
# for at most wait_s seconds in all, saying once what it waits for.
start=$(date +%s) said=
apt() {
    local out
    while :; do
        out=$($sudo apt-get "$@" 2>&1) && return 0
        if ! grep -q "Could not get lock" <<<"$out"; then
            printf '%s\n' "$out" >&2
            return 1
        fi
        local holder waited=$(($(date +%s) - start))
        holder=$(grep -o 'held by process [0-9]* ([^)]*)' <<<"$out" | head -1)
        if [ "$waited" -ge "$wait_s" ]; then
            echo "deps: the package lock is still ${holder:-held} after $waited s (DEPS_WAIT=$wait_s); try again when it is free" >&2
            return 1
        fi
        [ -n "$said" ] || echo "deps: the package lock is ${holder:-held by another install}: waiting for it (at most $wait_s s, DEPS_WAIT)" >&2
        said=1
        sleep 2
    done
}
apt update -qq || exit 1

# A package this Debian does not carry: clang-format-14 is replaced by the wheel above (and
# python3-venv to make it); any other is an error that names it.
pkgs=() wheel=
for p in "$@"; do
    if carried "$p"; then pkgs+=("$p")
    elif [ "$p" = clang-format-14 ]; then wheel=1; pkgs+=(python3-venv)
    else echo "deps: this Debian has no package $p" >&2; exit 1; fi
done
# Without the packages Debian recommends beside them: half the download (301 against 604 MB
# for make deps on Debian 12, 230 packages against 473: no Fortran, Ghostscript, GDB, X or
# LLVM tools), and what the book does need of them is named here (libclang-rt-dev).
apt install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null || exit 1
[ -z "$wheel" ] || install_wheel || exit 1
echo "deps: installed for $what: ${pkgs[*]}"
