#!/usr/bin/env bash
# make autograder-check: run the autograder zip ($1) the way Gradescope does, in a temporary
# directory laid out like its /autograder, and check what it says of three submissions:
#
#   solutions  every reference solution, as loose files        full marks, every test passed
#   skeletons  every untouched skeleton, as loose files        zero, every test "not started"
#   mistakes   each file of solutions/wrong/ in a student's    partial marks on exactly those
#              tree (exercises/chN/NAME.c), and nothing else    exercises, and failed exactly
#              (the solutions' grade is the first submission's)  the tests each one's "Fails:"
#                                                               lines name; the rest not started
#
# and, as root, the attacks on the grader (solutions/attacks/; chapter 1's autograder), each
# in the grader's two modes, the sandbox and the jail alone (it must fail: 0 on its exercise,
# every other exercise's full score, nothing left running, no file left in /tmp or /dev/shm,
# root's canary file untouched, results.json naming the mode), and with the jail off (it must
# succeed, or it tests nothing); and a submission whose every exercise loops for ever (the
# whole book's autograder), graded within the bound env.sh states.
#
# As root each submission is graded as in Gradescope's container: in a cgroup of its own that
# bounds its processes and memory, with a private /tmp and /dev/shm of 64 MiB each.
# Gradescope builds an image once (the zip in source/, setup.sh run there) and grades each
# submission in a fresh container of it; so does this script, with a copy of the image.
#
#   instructors/autograder/check.sh --contents BOOK_ZIP CHAPTER_ZIP N
#
# checks, without grading, that a chapter's autograder is the whole book's restricted to
# chapter N: the same files, less the other chapters' hidden tests, with env.sh grading
# chapter N alone (make autograder-check-zips; the whole book's zip is the one graded).
set -euo pipefail
# Bash reads a script as it runs it; this brace makes it read the whole of it first, so that
# an edit while a check runs (it takes minutes) cannot change what runs.
{
if [ "${1:-}" = --contents ]; then
    book=${2:?usage: check.sh --contents BOOK_ZIP CHAPTER_ZIP N} one=${3:?} n=${4:?}
    t=$(mktemp -d -p /var/tmp dps-autograder-contents.XXXXXX)
    trap 'rm -rf "$t"' EXIT
    unzip -q "$book" -d "$t/book" && unzip -q "$one" -d "$t/one" || { echo "autograder-check: cannot unzip $book or $one" >&2; exit 1; }
    problems=()
    [ -d "$t/book/tests/hidden/ch$n" ] || problems+=("the whole book's zip has no tests/hidden/ch$n")
    hidden=$(cd "$t/one/tests/hidden" 2>/dev/null && ls -d ch* 2>/dev/null | tr '\n' ' ') || true
    [ "$hidden" = "ch$n " ] || problems+=("its tests/hidden holds '${hidden:-nothing}', not ch$n alone")
    # Every other file is the book's, env.sh apart, whose chapters line says N.
    rm -rf "$t/book/tests/hidden"/ch* "$t/one/tests/hidden/ch$n"
    chapters=$(. "$t/one/instructors/autograder/env.sh" && echo "$GRADE_CHAPTERS")
    [ "$chapters" = "$n" ] || problems+=("its env.sh grades chapters '$chapters', not $n")
    diff <(grep -v '^export GRADE_CHAPTERS=' "$t/book/instructors/autograder/env.sh") \
        <(grep -v '^export GRADE_CHAPTERS=' "$t/one/instructors/autograder/env.sh") >/dev/null ||
        problems+=("its env.sh differs from the book's beyond GRADE_CHAPTERS")
    rm -f "$t/book/instructors/autograder/env.sh" "$t/one/instructors/autograder/env.sh"
    d=$(diff -rq "$t/book" "$t/one" 2>&1 | sed "s|$t/||g" | head -5) || true
    [ -z "$d" ] || problems+=("it differs from the whole book's zip: $d")
    exercises=$(grep -v '^#' exercises/MANIFEST | awk -v c="ch$n" '$1 == c' | wc -l) || true
    [ "$exercises" -gt 0 ] || problems+=("exercises/MANIFEST has no exercise of chapter $n")
    if [ ${#problems[@]} != 0 ]; then
        for p in "${problems[@]}"; do echo "autograder-check: ${one##*/}: $p" >&2; done
        exit 1
    fi
    echo "autograder-check: ${one##*/}: the whole book's zip, with chapter $n's hidden tests only and env.sh grading its $exercises exercises"
    exit 0
fi
zip=${1:?usage: instructors/autograder/check.sh build/dps-autograder.zip}
zip=$(realpath "$zip")
repo=$(pwd)
# Not below /tmp, which each grade gets a private one of.
tmp=$(mktemp -d -p /var/tmp dps-autograder-check.XXXXXX)
chmod 755 "$tmp" # as /autograder is: the jail's user must reach the host it runs
trap '[ -n "${KEEP:-}" ] && echo "autograder-check: kept $tmp" >&2 || rm -rf "$tmp"' EXIT
fail() { echo "autograder-check: $*" >&2; exit 1; }

# The image: /autograder/source, /autograder/run_autograder, after setup.sh.
image=$tmp/image
mkdir -p "$image/source"
unzip -q "$zip" -d "$image/source"
[ -x "$image/source/setup.sh" ] && [ -x "$image/source/run_autograder" ] ||
    fail "setup.sh and run_autograder must be executable at the root of the zip"
[ ! -e "$image/source/solutions" ] || fail "the zip holds solutions/"
cp "$image/source/run_autograder" "$image/run_autograder"
start=$(date +%s)
(cd "$image/source" && bash ./setup.sh) >"$tmp/setup.log" 2>&1 ||
    { tail -20 "$tmp/setup.log"; fail "setup.sh failed"; }
echo "autograder-check: setup.sh built the image in $(($(date +%s) - start)) s"

# The bounded setting (root only): a cgroup per submission, of cgroup v2 or v1, bounding the
# memory (4 GiB, as Gradescope's container does) and the processes, to 256 where the container
# allows 1,024: CI's run on 2026-11-29 was ended from outside (exit -1, no word printed) in the
# second the fork bomb with the jail off reached 1,024 processes, with memcheck running beside
# it. 256 still starves the grader with the jail off, and is twice the jail's own limit
# (JAIL_NPROC, 128), which the attack with the jail on must meet first.
pids_max=256
bounded=0
if [ "$(id -u)" = 0 ]; then
    if grep -qw pids /sys/fs/cgroup/cgroup.controllers 2>/dev/null &&
        grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
        bounded=2
    elif [ -d /sys/fs/cgroup/pids ] && [ -d /sys/fs/cgroup/memory ]; then
        bounded=1
    fi
    command -v unshare >/dev/null || bounded=0
fi
# The cgroup directories of submission $1 (made), one per line.
cgroup_make() {
    local n=dps-check-$$-$1 d
    if [ $bounded = 2 ]; then
        echo "+pids +memory" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
        d=/sys/fs/cgroup/$n && mkdir "$d" && echo $pids_max >"$d/pids.max" && echo 4G >"$d/memory.max" && echo "$d"
    else
        d=/sys/fs/cgroup/pids/$n && mkdir "$d" && echo $pids_max >"$d/pids.max" && echo "$d"
        d=/sys/fs/cgroup/memory/$n && mkdir "$d" && echo $((4 << 30)) >"$d/memory.limit_in_bytes" && echo "$d"
    fi
}
# The processes left in cgroup directories $@ (pids, one per line).
cgroup_procs() { local d; for d; do cat "$d/cgroup.procs"; done 2>/dev/null | sort -u; }
# Kill what is left in cgroup directories $@ and remove them.
cgroup_end() {
    local round
    for round in $(seq 100); do
        [ -n "$(cgroup_procs "$@")" ] || break
        cgroup_procs "$@" | xargs -r kill -KILL 2>/dev/null
        sleep 0.1
    done
    rmdir "$@" 2>/dev/null || true
}

# Grade submission $1, whose files the commands on stdin put into $c/submission. In the
# bounded setting it also records, in $c/check/: run_autograder's status (rc), its seconds,
# how many processes were left in its cgroup after it returned (procs), how many files in its
# /tmp and /dev/shm (files), and whether root's canary file ($c/canary) changed (canary).
# With MAY_FAIL=1 a failed run_autograder is recorded, not fatal (an attack with the jail off).
submit() {
    local name=$1 t0 rc cgs
    c=$tmp/$name
    cp -a "$image" "$c"
    mkdir -p "$c/submission" "$c/results" "$c/check"
    printf 'the canary: root'"'"'s file, which no grade may change\n' >"$c/canary"
    chmod 644 "$c/canary"
    . /dev/stdin
    t0=$(date +%s)
    if [ $bounded != 0 ]; then
        mapfile -t cgs < <(cgroup_make "$name")
        C=$c WRAP=${WRAP:-} GRADE_FAULT_SWEEP=${FAULT_SWEEP:-} unshare --mount --propagation private bash -c '
            for d in "$@"; do echo $$ >"$d/cgroup.procs" || exit 99; done
            mount -t tmpfs -o size=64m,mode=1777 tmpfs /tmp &&
                mount -t tmpfs -o size=64m,mode=1777 tmpfs /dev/shm || exit 99
            (cd "$C" && AUTOGRADER_ROOT=$C $WRAP ./run_autograder) >"$C/results/stdout" 2>&1
            rc=$?
            find /tmp /dev/shm -mindepth 1 -maxdepth 1 >"$C/check/files.list"
            wc -l <"$C/check/files.list" >"$C/check/files"
            exit $rc' bash "${cgs[@]}" 2>"$c/check/shell.log" && rc=0 || rc=$?
        sleep 0.2
        cgroup_procs "${cgs[@]}" | wc -l >"$c/check/procs"
        cgroup_end "${cgs[@]}"
        # What an attack with the jail off (root's) planted in the machine's own /var/tmp.
        find /var/tmp -maxdepth 1 -type l -lname "$c/*" -delete 2>/dev/null || true
        [ $rc != 99 ] || fail "$name: the bounded setting could not be made (cgroup, mount)"
    else
        (cd "$c" && AUTOGRADER_ROOT=$c GRADE_FAULT_SWEEP=${FAULT_SWEEP:-} ${WRAP:-} ./run_autograder) >"$c/results/stdout" 2>&1 && rc=0 || rc=$?
        echo 0 >"$c/check/procs"
        echo 0 >"$c/check/files"
    fi
    echo $rc >"$c/check/rc"
    echo $(($(date +%s) - t0)) >"$c/check/seconds"
    printf 'the canary: root'"'"'s file, which no grade may change\n' | cmp -s - "$c/canary" &&
        echo same >"$c/check/canary" || echo changed >"$c/check/canary"
    if [ "${MAY_FAIL:-0}" != 1 ]; then
        [ $rc = 0 ] || { tail -20 "$c/results/stdout"; fail "$name: run_autograder failed"; }
        [ -s "$c/results/results.json" ] || { tail -20 "$c/results/stdout"; fail "$name: no results.json"; }
    fi
    echo "autograder-check: $name: graded in $(cat "$c/check/seconds") s"
}

# tests/jail/nouserns.c, built once into $tmp: the jail's mode, where the sandbox could run.
nouserns() {
    [ -x "$tmp/nouserns" ] || cc -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE "$repo/tests/jail/nouserns.c" \
        -o "$tmp/nouserns" || fail "tests/jail/nouserns.c does not build"
}

# What the zip grades, as its env.sh says: the chapters (empty: all) and the hidden tests'
# visibility.
chapters=$(. "$image/source/instructors/autograder/env.sh" && echo "$GRADE_CHAPTERS")
visibility=$(. "$image/source/instructors/autograder/env.sh" && echo "$GRADE_HIDDEN_VISIBILITY")
export CHECK_CHAPTERS=$chapters CHECK_VISIBILITY=$visibility
exercises=$(grep -v '^#' exercises/MANIFEST |
    awk -v c="$chapters" 'BEGIN { n = split(c, l, / +/); for (i = 1; i <= n; i++) w["ch" l[i]] = 1 }
                          NF && (n == 0 || ($1 in w)) { print $1 "/" $2 }')

submit solutions <<'EOF'
for e in $exercises; do cp "$repo/solutions/$e.c" "$c/submission/"; done
EOF
submit skeletons <<'EOF'
for e in $exercises; do git -C "$repo" show "HEAD:exercises/$e.c" >"$c/submission/${e#*/}.c"; done
EOF
submit mistakes <<'EOF'
for e in $exercises; do
    wrong=$repo/solutions/wrong/$e.c
    [ -f "$wrong" ] || continue
    mkdir -p "$c/submission/my-dps/exercises/${e%/*}"
    cp "$wrong" "$c/submission/my-dps/exercises/$e.c"
done
EOF

# A sweep that cannot finish (root, chapter 1's autograder): the reference solutions, with
# the sweeps of 1.4 made to fail (GRADE_FAULT_SWEEP): 1.4 scores 0 with the reason, the
# others in full, each exercise as a uid of its own.
sweep_fault=
if [ "$(id -u)" = 0 ] && [ "$chapters" = 1 ]; then
    sweep_fault=ch1/relu_bias_backward
    FAULT_SWEEP=$sweep_fault submit sweep-fails <<'EOF'
for e in $exercises; do cp "$repo/solutions/$e.c" "$c/submission/"; done
EOF
fi
export CHECK_SWEEP_FAULT=$sweep_fault
# What a test says when the student's code dies in the jail (root, chapter 1's autograder):
# 1.4 dereferences a null pointer, 1.3 calls exit(7); and when it does not compile with text
# that is not UTF-8 (1.1's #error holds the bytes e9 and ff); 1.2 is the solution.
crashes=
if [ "$(id -u)" = 0 ] && [ "$chapters" = 1 ]; then
    crashes=1
    submit crashes <<'EOF'
for e in $exercises; do cp "$repo/solutions/$e.c" "$c/submission/"; done
printf '%s\n' '#include "ch1.h"' \
    'void relu_bias_backward(float *dy, const float *y, float *dbias, int rows, int cols)' \
    '{ (void)dy, (void)y, (void)dbias, (void)rows, (void)cols; *(volatile int *)0 = 1; }' \
    >"$c/submission/relu_bias_backward.c"
{ sed '/^#include/q' "$repo/solutions/ch1/sgd_nesterov.c"; echo '#include <stdlib.h>'
  echo '__attribute__((constructor)) static void leave(void) { exit(7); }'
  sed '1,/^#include/d' "$repo/solutions/ch1/sgd_nesterov.c"; } >"$c/submission/sgd_nesterov.c"
printf '#include "ch1.h"\n#error caf\351 \377 broken\n' >"$c/submission/gemm_blocked.c"
EOF
fi
export CHECK_CRASHES=$crashes
# Two gradings at once on this machine (root, chapter 1's autograder): the reference
# solutions twice, side by side, in the jail alone (where the sweep, which kills every process
# of a uid, is all that cleans up); each must score in full.
together=
if [ "$(id -u)" = 0 ] && [ "$chapters" = 1 ]; then
    nouserns
    together="together-1 together-2" pids=()
    for name in $together; do
        WRAP=$tmp/nouserns submit "$name" <<'EOF' &
for e in $exercises; do cp "$repo/solutions/$e.c" "$c/submission/"; done
EOF
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || fail "two gradings side by side: one failed (above)"; done
fi
export CHECK_TOGETHER=$together

# The cheats (solutions/cheats/chN/NAME--HOW.c: an answer taken from the handout, a call of
# the book's own function or the communicator's): submission cheats-K holds the K-th cheat of
# each exercise that has one, and must score 0.
cheat_rounds=0
for e in $exercises; do
    k=$(ls "$repo/solutions/cheats/$e"--*.c 2>/dev/null | wc -l || true)
    [ "$k" -le "$cheat_rounds" ] || cheat_rounds=$k
done
for k in $(seq "$cheat_rounds"); do
    K=$k submit "cheats-$k" <<'EOF2'
for e in $exercises; do
    f=$(ls "$repo/solutions/cheats/$e"--*.c 2>/dev/null | sort | sed -n "${K}p" || true)
    [ -z "$f" ] || cp "$f" "$c/submission/${e#*/}.c"
done
EOF2
done
export CHECK_CHEAT_ROUNDS=$cheat_rounds

# The attacks on the grader (solutions/attacks/, each a file of one of chapter 1's
# exercises): each must succeed with the jail off and fail with it on. Only root can switch users, as Gradescope's
# run_autograder does; as anyone else the attacks are not run. They run in chapter 1's
# autograder; without the bounded setting, the fork bomb, which only a cgroup contains, does
# not.
attacks= loops=
if [ "$(id -u)" != 0 ]; then
    echo "autograder-check: not root: the jail's isolation was not exercised (run as root, as Gradescope and CI do)"
elif [ "$chapters" = 1 ]; then
    attacks="forge_verdict read_hidden write_results plant_links proc_peek daemon spinners fill_disk memory_hog kernel_leftovers deep_chain sandbox_probe wire_forgery"
    if [ $bounded != 0 ]; then attacks+=" fork_bomb"
    else echo "autograder-check: no cgroup to bound them: the fork bomb not run, the others not bounded"; fi
    # ATTACKS="a b" runs only those (while working on one).
    [ -z "${ATTACKS:-}" ] || attacks=$ATTACKS
elif [ -z "$chapters" ]; then
    loops=1
fi
# The exercise attack $1 takes the place of: the first three attack the verdict of 1.4; the
# others, built on solutions/attacks/common.h, are 1.1 (gemm_blocked), the chapter's first,
# so that every later exercise shows what they did to the grading.
attack_target() { grep -q '#include "common.h"' "$repo/solutions/attacks/$1.c" && echo ch1/gemm_blocked || echo ch1/relu_bias_backward; }
# The submission's file of attack $1: the attack, with solutions/attacks/common.h pasted in.
attack_file() {
    local f=$repo/solutions/attacks/$1.c
    if grep -q '#include "common.h"' "$f"; then
        { cat "$repo/solutions/attacks/common.h"; grep -v '#include "common.h"' "$f"; }
    else cat "$f"; fi
}
# The modes of the grader each attack is graded in (tests/grade.sh, GRADE_SANDBOX):
#   sandbox  bubblewrap's namespaces around the jail's user, where this machine lets that
#            user make them (results.json must say "sandbox");
#   jail     the jail alone: the same grade under tests/jail/nouserns.c's seccomp filter,
#            which refuses new namespaces as Docker's default profile does (Gradescope's
#            container, most likely), so that the grader must fall back (results.json: "jail");
#   off      the jail off, the attack alone: it must succeed, or it tests nothing.
# AG_ATTACK_MODES=alternate (CI's quick run): each attack in one mode, sandbox and jail in
# turn, none with the jail off; else a list of modes (default: all three).
sandbox_here=0
if ! command -v setpriv >/dev/null; then
    # No setpriv to ask with: the solutions' grade says what the grader found.
    grep -q '"isolation": "sandbox"' "$tmp/solutions/results/results.json" && sandbox_here=1
elif command -v bwrap >/dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups bwrap --unshare-user --ro-bind /usr /usr \
        --symlink usr/lib /lib --symlink usr/lib64 /lib64 /usr/bin/true 2>/dev/null; then
    sandbox_here=1
fi
attack_runs=() k=0
for a in $attacks; do
    case ${AG_ATTACK_MODES:-sandbox jail off} in
    alternate) modes=$([ $((k % 2)) = 0 ] && echo sandbox || echo jail)
        # The probe of what the code sees: in the sandbox, which only it shows to be one.
        [ "$a" != sandbox_probe ] || modes=sandbox ;;
    *) modes=${AG_ATTACK_MODES:-sandbox jail off} ;;
    esac
    # The jail's own protocol: with the jail off there is none to speak.
    [ "$a" != wire_forgery ] || modes=$(echo $modes | sed 's/\boff\b//')
    k=$((k + 1))
    for m in $modes; do
        [ "$m" != sandbox ] || [ $sandbox_here = 1 ] || m=jail
        case " ${attack_runs[*]} " in *" $a:$m "*) continue ;; esac
        attack_runs+=("$a:$m")
    done
done
[ -z "$attacks" ] || [ $sandbox_here = 1 ] ||
    echo "autograder-check: this machine does not let an unprivileged user make namespaces (or has no bwrap): the attacks graded in the jail mode only"
[ -z "$attacks" ] || nouserns
for run in "${attack_runs[@]}"; do
    a=${run%:*} m=${run#*:}
    W=
    [ "$m" != jail ] || W=$tmp/nouserns
    A=$a M=$m T=$(attack_target "$a") MAY_FAIL=$([ "$m" = off ] && echo 1 || echo 0) WRAP=$W \
        submit "attack-$a-$m" <<'EOF2'
[ "$M" != off ] || sed -i "s/GRADE_JAIL=1/GRADE_JAIL=0/" "$c/source/instructors/autograder/env.sh"
# With the jail off the attack alone (it only has to show that it works, and a grade that it
# slows down is long); with it on the chapter's other solutions beside it, whose scores must
# not change.
[ "$M" = off ] || for e in $exercises; do [ "$e" = "$T" ] || cp "$repo/solutions/$e.c" "$c/submission/"; done
attack_file "$A" >"$c/submission/${T#*/}.c"
EOF2
done
# Submission paths (with the jail on only: the defence is the reading of the submission,
# which comes before any jail): a folder whose name holds newlines and a line that names a
# hidden test, and a symbolic link of an exercise's name to another hidden test, beside the
# reference solutions.
if [ -n "$attacks" ]; then
    attacks+=" read_placed"
    attack_runs+=("read_placed:$([ $sandbox_here = 1 ] && echo sandbox || echo jail)")
    MAY_FAIL=0 submit "attack-read_placed-${attack_runs[-1]#*:}" <<'EOF2'
for e in $exercises; do [ "$e" = ch1/gemm_blocked ] || cp "$repo/solutions/$e.c" "$c/submission/"; done
attack_file read_placed >"$c/submission/gemm_blocked.c"
odd=$c/submission/$'x\n../source/tests/hidden/ch1/ex_sgd_nesterov.c\n'
mkdir -p "$odd" "$c/submission/mine/ch1"
cp "$repo/solutions/ch1/sgd_nesterov.c" "$odd/sgd_nesterov.c"
ln -s ../../../source/tests/hidden/ch1/ex_relu_bias_backward.c "$c/submission/mine/ch1/relu_bias_backward.c"
EOF2
fi
# Time: every exercise of the book loops for ever, in its constructor (the solution with a
# spinning constructor added), and the first in its compiler (#include "/dev/zero").
# LOOP_BUDGET=b grades it with a smaller budget than env.sh's B (each test b/2 seconds, as
# B's tests have B/2, and the compiler b/2): every exercise then spends its budget and the
# grader's own overhead o, so the grade takes n(b + o), and with the real budget it would
# take n(B + o) = T + n(B - b), which is what the bound is held to.
if [ -n "$loops" ]; then
    loop_budget=${LOOP_BUDGET:-}
    if [ -n "$loop_budget" ]; then
        [[ $loop_budget =~ ^[0-9]+$ ]] && [ "$loop_budget" -ge 2 ] && [ $((loop_budget % 2)) = 0 ] ||
            fail "LOOP_BUDGET=$loop_budget: an even number of seconds, 2 or more"
    fi
    LB=$loop_budget MAY_FAIL=0 submit "loop-forever" <<'EOF2'
[ -z "$LB" ] || sed -i "s/^export GRADE_TIMEOUT=[0-9]* GRADE_BUDGET=[0-9]* GRADE_COMPILE_TIMEOUT=[0-9]*/export GRADE_TIMEOUT=$((LB / 2)) GRADE_BUDGET=$LB GRADE_COMPILE_TIMEOUT=$((LB / 2))/" \
    "$c/source/instructors/autograder/env.sh"
grep -q "^export GRADE_TIMEOUT=$((${LB:-0} / 2)) GRADE_BUDGET=$LB " "$c/source/instructors/autograder/env.sh" || [ -z "$LB" ] ||
    { echo "autograder-check: env.sh's time line is not the one LOOP_BUDGET rewrites" >&2; exit 1; }
for e in $exercises; do
    { cat "$repo/solutions/$e.c"; echo '__attribute__((constructor)) static void spin_for_ever(void) { for (;;) ; }'; } \
        >"$c/submission/${e#*/}.c"
done
first=$(echo $exercises | cut -d' ' -f1)
echo '#include "/dev/zero"' >"$c/submission/${first#*/}.c"
EOF2
fi
export CHECK_ATTACKS=$attacks CHECK_LOOPS=$loops CHECK_ATTACK_RUNS="${attack_runs[*]}" CHECK_SANDBOX=$sandbox_here
export CHECK_TARGETS=$(for a in $attacks; do echo "$a=$(attack_target "$a")"; done)
export CHECK_BOUND=$(. "$image/source/instructors/autograder/env.sh" && echo "$GRADE_BOUND")
export CHECK_BUDGET=$(. "$image/source/instructors/autograder/env.sh" && echo "$GRADE_BUDGET")
export CHECK_LOOP_BUDGET=${loop_budget:-}

# The guide's counts are the tree's, and its tests are the ones that ran.
python3 "$repo/instructors/guide.py" --check --results "$tmp/solutions/results/results.json" |
    sed 's/^guide: /autograder-check: /' || fail "instructors/GUIDE.md (above)"

# What each submission's results.json must say.
python3 - "$tmp" "$repo" <<'EOF'
import json, os, re, sys
tmp, repo = sys.argv[1], sys.argv[2]
chapters = {"ch" + c for c in os.environ.get("CHECK_CHAPTERS", "").split()}
hidden_vis = os.environ.get("CHECK_VISIBILITY", "after_published")
manifest = [l.split(None, 6) for l in open(os.path.join(repo, "exercises/MANIFEST"))
            if l.strip() and not l.startswith("#")]
manifest = [m for m in manifest if not chapters or m[0] in chapters]
points = {f"{m[0]}/{m[1]}": float(m[3]) for m in manifest}
total = sum(points.values())
wrong = {}
for ch, name, *_ in manifest:
    p = os.path.join(repo, "solutions/wrong", ch, name + ".c")
    if os.path.exists(p):
        wrong[f"{ch}/{name}"] = set(re.findall(r"Fails: (\S+)", open(p).read()))
problems = []

def load(name):
    r = json.load(open(os.path.join(tmp, name, "results/results.json")))
    by = {}
    for t in r["tests"]:
        for key in ("name", "score", "max_score", "status", "visibility", "output"):
            if key not in t:
                problems.append(f"{name}: a test without {key}: {t}")
        ex = t["name"].split(" ", 1)[0]
        if ex not in points:
            problems.append(f"{name}: a test of no exercise: {t['name']}")
        by.setdefault(ex, []).append(t)
    if set(by) != set(points):
        problems.append(f"{name}: exercises graded {sorted(by)} are not the MANIFEST's")
    for ex, ts in by.items():
        if abs(sum(t["max_score"] for t in ts) - points[ex]) > 0.01:
            problems.append(f"{name}: {ex}: the tests' max_score add up to "
                            f"{sum(t['max_score'] for t in ts)}, not {points[ex]}")
        if not any(t["visibility"] == hidden_vis for t in ts):
            problems.append(f"{name}: {ex} has no hidden test")
    return r, by

def test_id(t):  # "suite::name" back from "chN/name (title): test (public)"
    return t["name"].rsplit(": ", 1)[1].rsplit(" (", 1)[0]

r, by = load("solutions")
if abs(r["score"] - total) > 0.01 or any(t["status"] != "passed" for ts in by.values() for t in ts):
    bad = [t["name"] for ts in by.values() for t in ts if t["status"] != "passed"]
    problems.append(f"solutions: score {r['score']} of {total}; failed: {bad}")
want = "sandbox" if os.environ.get("CHECK_SANDBOX") == "1" else "jail"
if os.getuid() == 0 and r.get("extra_data", {}).get("isolation") != want:
    problems.append(f"solutions: graded in the {r.get('extra_data', {}).get('isolation')} mode, "
                    f"where this machine allows the {want}")
n_tests = sum(len(ts) for ts in by.values())
n_hidden = sum(t["name"].endswith("(hidden)") for ts in by.values() for t in ts)

# Each exercise ran as a uid of its own (root's grades: tests/grade.sh's "runs as uid" lines).
if os.getuid() == 0:
    uids = re.findall(r"^grade: (\S+) runs as uid (\d+)$",
                      open(os.path.join(tmp, "solutions", "results", "stdout")).read(), re.M)
    if len(uids) != len(points) or len({u for _, u in uids}) != len(points):
        problems.append(f"solutions: {len(points)} exercises ran as {len({u for _, u in uids})} "
                        f"uids ({uids[:3]}...), not one each")

r, by = load("skeletons")
if r["score"] != 0 or any(t["status"] != "failed" or "not started" not in t["output"]
                          for ts in by.values() for t in ts):
    problems.append(f"skeletons: score {r['score']}, expected 0 with every test not started")

r, by = load("mistakes")
for ex, ts in by.items():
    got = sum(t["score"] for t in ts)
    failed = {t["name"].rsplit(": ", 1)[1].rsplit(" (", 1)[0] for t in ts if t["status"] == "failed"}
    if ex in wrong:
        names = {f.split("::", 1)[1] for f in wrong[ex]}
        if not 0 < got < points[ex]:
            problems.append(f"mistakes: {ex} scored {got:.2f} of {points[ex]}, expected partial marks")
        if failed != names:
            problems.append(f"mistakes: {ex} failed {sorted(failed)}, its Fails: lines name {sorted(names)}")
        for t in ts:
            if t["status"] == "failed" and not t["output"].strip():
                problems.append(f"mistakes: {t['name']} failed without a message")
    elif got != 0 or any(t["status"] != "failed" or "not started" not in t["output"] for t in ts):
        problems.append(f"mistakes: {ex} (not submitted) scored {got:.2f}, expected 0 with every test not started")
if "my-dps/exercises/" not in r.get("output", ""):
    problems.append("mistakes: results.json's output does not list the files taken from the tree")

report = []
# The sweep that failed: its exercise 0, every test saying why; the others full.
fault = os.environ.get("CHECK_SWEEP_FAULT")
if fault:
    r, by = load("sweep-fails")
    for ex, ts in by.items():
        got = sum(t["score"] for t in ts)
        if ex == fault:
            if got != 0 or any("could not remove what its code left" not in t["output"] for t in ts):
                problems.append(f"sweep-fails: {ex} scored {got:g}, or a test did not say why it failed")
        elif abs(got - points[ex]) > 0.01:
            problems.append(f"sweep-fails: {ex} scored {got:g} of {points[ex]:g} after {fault}'s sweep failed")
    report.append(f"a sweep that cannot finish: {fault} scored 0 with the reason, the others full")

# The crashes: 1.4's and 1.3's tests each say how the code died, and where; 1.1's, why it
# did not compile, the text cleaned to UTF-8 (results.json loaded: it is valid JSON).
if os.environ.get("CHECK_CRASHES"):
    r, by = load("crashes")
    mode = r.get("extra_data", {}).get("isolation")
    said = {"ch1/relu_bias_backward": [f"your code was killed in the {mode} (SIGSEGV: a bad pointer)"],
            "ch1/sgd_nesterov": [f"your code ended its own process in the {mode} (exit status 7)"],
            "ch1/gemm_blocked": ["does not compile:", "#error caf"]}
    for ex, words in said.items():
        for t in by.get(ex, []):
            for w in words:
                if t["status"] != "failed" or w not in t["output"]:
                    problems.append(f"crashes: {t['name']}: {t['status']}, without '{w}': {t['output'][:200]}")
    report.append("a crash, an exit and a compiler's message that is not UTF-8, in the jail: "
                  "each test of theirs says what happened")

# Two gradings side by side: each in full, in the jail.
for name in os.environ.get("CHECK_TOGETHER", "").split():
    r, by = load(name)
    if abs(r["score"] - total) > 0.01 or r.get("extra_data", {}).get("isolation") != "jail":
        bad = [t["name"] for ts in by.values() for t in ts if t["status"] != "passed"]
        problems.append(f"{name}: beside another grading, {r['score']} of {total} in the "
                        f"{r.get('extra_data', {}).get('isolation')} mode; failed: {bad[:3]}")
if os.environ.get("CHECK_TOGETHER"):
    report.append("two gradings side by side, in the jail: each in full")

# The cheats: each scores 0 on its exercise, every test failed with a reason.
n_cheats = 0
for k in range(1, int(os.environ.get("CHECK_CHEAT_ROUNDS", "0")) + 1):
    r, by = load(f"cheats-{k}")
    if r["score"] != 0:
        problems.append(f"cheats-{k}: scored {r['score']}, expected 0")
    for ex, ts in by.items():
        if any("not started" in t["output"] for t in ts):
            continue
        n_cheats += 1
        for t in ts:
            if t["status"] != "failed" or not t["output"].strip():
                problems.append(f"cheats-{k}: {t['name']}: {t['status']}, expected failed with its reason")
if n_cheats:
    report.append(f"{n_cheats} cheats (solutions/cheats/) score 0 on their exercise, every test failed with its reason")

# The attacks: with the jail off each succeeds, with it on each fails, scores 0 on its
# exercise, leaves every other exercise its full score, nothing running, no file in /tmp or
# /dev/shm, and root's canary as it was.
def facts(d):
    return {k: open(os.path.join(d, "check", k)).read().strip() for k in
            ("rc", "procs", "files", "canary", "seconds")}

def scores(r):
    got = {}
    for t in r.get("tests", []):
        ex = t["name"].split(" ", 1)[0]
        got[ex] = got.get(ex, 0) + t["score"]
    return got

attacks = os.environ.get("CHECK_ATTACKS", "").split()
targets = dict(l.split("=", 1) for l in os.environ.get("CHECK_TARGETS", "").split())
runs = [r.rsplit(":", 1) for r in os.environ.get("CHECK_ATTACK_RUNS", "").split()]
for a, mode in runs:
    target = targets[a]
    jail = mode != "off"
    if True:
        d = os.path.join(tmp, f"attack-{a}-{mode}")
        f = facts(d)
        try:
            r = json.load(open(os.path.join(d, "results/results.json")))
        except (OSError, ValueError):
            r = {}
        text = json.dumps(r)
        got = scores(r)
        others_full = bool(r) and all(abs(got.get(ex, 0) - p) < 0.01
                                      for ex, p in points.items() if ex != target)
        stdout = open(os.path.join(d, "results/stdout"), errors="replace").read()
        done = {"forge_verdict": abs(got.get(target, 0) - points.get(target, 10)) < 0.01,
                "read_hidden": "Hidden tests of exercise 1.4" in text,
                "write_results": os.path.exists(os.path.join(d, "results/forged.json")),
                "plant_links": f["canary"] != "same",
                "proc_peek": "LEAKED-JUDGE" in text,
                "daemon": f["procs"] != "0", "spinners": f["procs"] != "0",
                "memory_hog": f["procs"] != "0", "fill_disk": f["files"] != "0",
                "deep_chain": f["files"] != "0",
                "fork_bomb": f["procs"] != "0" or f["rc"] != "0" or
                             "Resource temporarily unavailable" in stdout,
                "kernel_leftovers": "= 777777" in text,
                "wire_forgery": "= 424242" in text or got.get(target, 0) > 0,
                "read_placed": "LEAKED-PLACE" in text,
                # Not an attack: what the code saw (solutions/attacks/sandbox_probe.c), as
                # 7SPU; "succeeded" when it saw what its mode should have hidden.
                "sandbox_probe": set(re.findall(r"= (7[01]{3})\b", text)) !=
                                 ({"7000"} if mode == "sandbox" else {"7111"})}[a]
        if a == "sandbox_probe" and not jail:
            done = not done  # with the jail off it must see the machine
        isolation = r.get("extra_data", {}).get("isolation")
        line = (f"{a}, {'jail off' if not jail else 'in the ' + mode}: "
                f"{'succeeded' if done else 'failed'}; "
                f"{got.get(target, 0):g} on {target}, "
                f"{'others full, ' if jail and others_full else 'others NOT full, ' if jail else ''}"
                f"{f['procs']} processes and {f['files']} files left, canary {f['canary']}, "
                f"{f['seconds']} s")
        report.append(line)
        if not jail and not done:
            problems.append(f"attack {a}: it failed with the jail off, so it tests nothing ({line})")
        if jail:
            bad = []
            if isolation != mode:
                bad.append(f"results.json says it was graded in the {isolation} mode")
            if done:
                bad.append("it succeeded")
            if got.get(target, 0) != 0:
                bad.append(f"{got.get(target, 0):g} points on its exercise")
            if not others_full:
                bad.append("another exercise lost points")
            if f["procs"] != "0":
                bad.append(f"{f['procs']} processes left running")
            if f["files"] != "0":
                names = open(os.path.join(d, "check", "files.list")).read().split()[:5]
                bad.append(f"{f['files']} files left in /tmp and /dev/shm ({' '.join(names)} ...)")
            if f["canary"] != "same":
                bad.append("root's canary changed")
            if f["rc"] != "0":
                bad.append(f"run_autograder's status {f['rc']}")
            if a == "read_placed" and text.count("refused: ") < 2:
                bad.append("the two odd names were not both refused in the output")
            if bad:
                problems.append(f"attack {a}, in the {mode}: " + "; ".join(bad))

if os.environ.get("CHECK_LOOPS"):
    d = os.path.join(tmp, "loop-forever")
    f = facts(d)
    r = json.load(open(os.path.join(d, "results/results.json")))
    bound = int(os.environ.get("CHECK_BOUND") or 600)
    budget = int(os.environ.get("CHECK_BUDGET") or 20)
    small = os.environ.get("CHECK_LOOP_BUDGET")
    got = scores(r)
    seconds = int(f["seconds"])
    if small:
        # n(b + o) measured; n(B + o) = T + n(B - b) is what the real budget would take.
        n, b = len(points), int(small)
        carried = seconds + n * (budget - b)
        how = (f"graded in {seconds} s with a budget of {b} s an exercise, so with env.sh's "
               f"{budget} s: {seconds} + {n} x ({budget} - {b}) = {carried} s (the bound: {bound} s)")
    else:
        carried = seconds
        how = f"graded in {seconds} s (the bound: {bound} s)"
    line = (f"every exercise looping for ever: {how}, "
            f"{sum(got.values()):g} points, {f['procs']} processes and {f['files']} files left")
    report.append(line)
    if carried > bound or sum(got.values()) != 0 or f["procs"] != "0" or f["files"] != "0":
        names = open(os.path.join(d, "check", "files.list")).read().split()[:5]
        problems.append("loop-forever: " + line + (f" ({' '.join(names)} ...)" if names else ""))

for p in problems:
    print("autograder-check: " + p, file=sys.stderr)
if problems:
    sys.exit(1)
exercises = "exercise" if len(wrong) == 1 else "exercises"
print(f"autograder-check: solutions {total:g}/{total:g} ({n_tests} tests, {n_hidden} hidden), "
      f"skeletons 0/{total:g}, mistakes partial on exactly {len(wrong)} {exercises} "
      f"({', '.join(sorted(wrong))}), each failing the tests it names")
for line in report:
    print("autograder-check: " + line)
if attacks:
    modes = sorted({m for _, m in runs})
    print(f"autograder-check: {len(attacks)} attacks ({', '.join(attacks)}), {len(runs)} grades "
          f"({', '.join(f'{sum(m == x for _, m in runs)} {x}' for x in modes)}): each fails in "
          f"the sandbox and the jail (0 on its exercise, the others intact, nothing left)"
          f"{' and succeeds with the jail off' if 'off' in modes else ''}")
EOF
exit
}
