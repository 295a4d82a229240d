#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image: it installs
# what grading needs and builds the book's library, so that each submission only compiles
# its own exercise files. The zip's files are in /autograder/source.
set -euo pipefail
cd "$(dirname "$0")"
. instructors/autograder/env.sh
missing=$(for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # Without what Debian recommends beside them (as make deps installs): a smaller image,
    # and nothing grading does not name in PACKAGES.
    apt-get install -y -qq --no-install-recommends $missing
fi
# The jail needs no user made here: each exercise runs as a fresh uid that no account names
# (tests/grade.sh, GRADE_JAIL_UIDS).
make --no-print-directory "${MAKE_FLAGS[@]}" grade-build
echo "setup: the library is built; packages: $PACKAGES"
# Which mode grades will most likely run in, as far as this image's build can tell (each
# grade tries again, and its results.json says which ran: extra_data.isolation).
if [ "$GRADE_JAIL" = 1 ] && [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    if setpriv --reuid=65534 --regid=65534 --clear-groups bwrap --unshare-all --unshare-user \
        --ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 /usr/bin/true 2>/dev/null; then
        echo "setup: bubblewrap can make its namespaces here: grades will most likely run in the sandbox"
    else
        echo "setup: bubblewrap cannot make its namespaces here: grades will most likely run in the jail alone"
    fi
fi
