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
if [ "$(id -u)" = 0 ]; then sudo=
elif command -v sudo >/dev/null; then sudo=sudo
else echo "deps: run as root, or: apt-get install $*" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive

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

# A package this Debian does not carry, with what stands in for it: clang-format-14 (the
# drift check formats with clang-format 14 exactly; Debian 13 carries 19 and later) comes
# from PyPI's clang-format 14.0.6 wheel, in a virtual environment of the tree's own
# (build/tools/clang-format-14, where the Makefile looks for it), with python3-venv from
# Debian. Any other missing package is an error that names it.
pkgs=() wheel=
for p in "$@"; do
    if apt-cache show --no-all-versions "$p" >/dev/null 2>&1; then pkgs+=("$p")
    elif [ "$p" = clang-format-14 ]; then wheel=1; pkgs+=(python3-venv)
    else echo "deps: this Debian has no package $p" >&2; exit 1; fi
done
apt install -y -qq "${pkgs[@]}" >/dev/null || exit 1
if [ -n "$wheel" ] && [ ! -x build/tools/clang-format-14/bin/clang-format ]; then
    rm -rf build/tools/clang-format-14 && mkdir -p build/tools
    { python3 -m venv build/tools/clang-format-14 &&
      build/tools/clang-format-14/bin/pip install -q --disable-pip-version-check clang-format==14.0.6; } >build/tools/clang-format-14.log 2>&1 ||
        { tail -5 build/tools/clang-format-14.log >&2; echo "deps: clang-format 14.0.6 from PyPI failed (above)" >&2; rm -rf build/tools/clang-format-14; exit 1; }
    echo "deps: clang-format 14.0.6 from PyPI, in build/tools/clang-format-14 (Debian here has no clang-format-14)"
fi
echo "deps: installed for $what: ${pkgs[*]}"
