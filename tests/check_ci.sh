#!/usr/bin/env bash
# make check-ci (make test runs it): CI's inventory cannot shrink without a test failing.
# It asks the two runners what they would run (.ci/run --list, .ci/run --full --list, both
# read .ci/stages) and fails when
#   - a check that must stay in CI (.ci/run) is not in its plan, or its command lost what
#     makes it that check: the README's test command, DEVICE=twin, the sanitizers, chapter
#     1's autograder (the attacks), the whole book's grade, the handout check, the book, the
#     docs, one fresh suite, and every build variant of scripts/matrix.sh (built with -Werror);
#   - a check CI ran before it was scoped runs in neither runner: every variant's whole
#     suite, both Debian suites whole, every chapter's autograder graded (chapter 1's attacks
#     in every mode of the grader), the whole book's
#     with its real time budget, three soak runs, and the rest below;
#   - a stage of .ci/stages runs in neither runner, or the quick and full budgets of CI pass
#     its 2400 s.
#
#   tests/check_ci.sh [STAGES_FILE]     (another file: the test of this test)
set -uo pipefail
cd "$(dirname "$0")/.."
stages=${1:-.ci/stages}
fail=0
problem() { echo "check-ci: $*" >&2; fail=1; }

# The plans, "NAME WHERE BUDGET" a line, read as the runners read them.
plan() { STAGES="$stages" bash .ci/run "$@"; }
quick=$(plan --list) || { problem ".ci/run --list failed"; exit 1; }
full=$(plan --full --list) || { problem ".ci/run --full --list failed"; exit 1; }
command_of() { awk -v n="$1" '$1 == n { $1 = $2 = $3 = ""; sub(/^ +/, ""); print; exit }' "$stages"; }
in_plan() { awk -v n="$2" '$1 == n { f = 1 } END { exit !f }' <<<"$1"; }

# need PLAN NAME TEXT...: stage NAME is in PLAN (quick: .ci/run, full: make ci-full, any:
# either) and its command holds every TEXT.
need() {
    local where=$1 name=$2 cmd t
    shift 2
    case $where in
    quick) in_plan "$quick" "$name" || { problem "$name must run in CI (.ci/run), and .ci/stages does not put it there"; return; } ;;
    full) in_plan "$full" "$name" || { problem "$name must run in make ci-full, and .ci/stages does not put it there"; return; } ;;
    any) in_plan "$quick" "$name" || in_plan "$full" "$name" ||
        { problem "$name runs nowhere: neither .ci/run nor make ci-full (.ci/stages)"; return; } ;;
    esac
    cmd=$(command_of "$name")
    for t; do
        [[ " $cmd " == *"$t"* ]] || problem "$name: its command ($cmd) does not hold '$t'"
    done
}

# What stays in CI.
need quick test " make test "
need quick test-twin "make test" "DEVICE=twin"
need quick sanitize "make test" "SANITIZE=address,undefined"
need quick autograder:ch1 "make autograder-check-chapters" "AG_ONLY=1 "
need quick autograder:book "make autograder-check-book"
need quick autograder:zips "make autograder-check-zips"
need quick handout-check "make handout-check"
need quick book "make book"
need quick docs "make docs"
need quick fresh:one "make fresh-check" "FRESH_SUITES=--one"
need quick soak:1 "make soak" "RUNS=1"
variants=$(sed -n 's/^ALL=(\(.*\))$/\1/p' scripts/matrix.sh)
[ -n "$variants" ] || problem "scripts/matrix.sh has no ALL=(...) line to read the variants from"
for v in $variants; do need quick "matrix:$v" "scripts/matrix.sh --scoped $v "; done
grep -q -- '-Werror' Makefile || problem "the Makefile's CFLAGS lost -Werror, which every variant is built with"

# What runs somewhere: everything CI ran before it was scoped.
need any deps "make deps"
need any deps-lock "tests/deps_lock.sh"
need any check-variants "make check-variants"
need any faults "make faults"
need any memcheck "make memcheck"
need any fuzz "make fuzz"
need full matrix "make matrix"
need full soak:3 "make soak" "RUNS=3"
need full autograder:book-full "make autograder-check-book"
[[ " $(command_of autograder:book-full) " != *LOOP_BUDGET* ]] ||
    problem "autograder:book-full must grade the loop-for-ever submission with env.sh's own budget (no LOOP_BUDGET)"
need full fresh:both "make fresh-check"
need full autograder:ch1-full "make autograder-check-chapters" "AG_ONLY=1 "
[[ " $(command_of autograder:ch1-full) " != *AG_ATTACK_MODES* ]] ||
    problem "autograder:ch1-full must grade every attack in every mode (no AG_ATTACK_MODES)"
need full handout-check-full "make handout-check"
[[ " $(command_of handout-check-full) " != *HANDOUT_SUBSTITUTES* ]] ||
    problem "handout-check-full must substitute the handout's functions (no HANDOUT_SUBSTITUTES)"
[[ " $(command_of fresh:both) " != *FRESH_SUITES* ]] || problem "fresh:both must run every suite (no FRESH_SUITES)"
[[ " $(command_of matrix) " != *MATRIX=* ]] || problem "matrix must run every variant (no MATRIX=)"
# Every chapter's autograder graded in make ci-full: the AG_ONLY and AG_SKIP lists of the
# stages it runs, against the MANIFEST's chapters.
chapters=$(grep -v '^#' exercises/MANIFEST | awk 'NF { print substr($1, 3) }' | sort -un)
graded=$(while read -r name _; do
    cmd=$(command_of "$name")
    [[ $cmd == *autograder-check-chapters* ]] || continue
    only=$(sed -n 's/.*AG_ONLY="\{0,1\}\([0-9 ]*\)"\{0,1\}.*/\1/p' <<<"$cmd")
    skip=$(sed -n 's/.*AG_SKIP="\{0,1\}\([0-9 ]*\)"\{0,1\}.*/\1/p' <<<"$cmd")
    for c in ${only:-$chapters}; do [[ " $skip " == *" $c "* ]] || echo "$c"; done
done <<<"$full" | sort -un)
for c in $chapters; do
    grep -qx "$c" <<<"$graded" || problem "chapter $c's autograder is graded by no stage of make ci-full"
done
# Every Debian suite of scripts/fresh_check.sh run whole in make ci-full (fresh:both, above,
# runs the default list); the default list holds both.
grep -q 'suites=(bookworm trixie)' scripts/fresh_check.sh || problem "scripts/fresh_check.sh no longer runs bookworm and trixie by default"

# Every stage runs somewhere, and CI's budgets fit its 40 minutes.
while read -r name where _; do
    case $name in '' | '#'*) continue ;; esac
    in_plan "$quick" "$name" || in_plan "$full" "$name" || problem "$name ($where) runs in neither .ci/run nor make ci-full"
done <"$stages"
# The run's planned wall time: the stages in the foreground one after another, and each lane
# of background stages (.ci/run: consecutive commands ending in &) beside the foreground
# stages after its start, past their end only by what it has more.
total=$(awk '$4 == "bg" { if (!open) { n++; open = 1 } lane[n] += $3; next }
             { open = 0; fg += $3; for (i = 1; i <= n; i++) beside[i] += $3 }
             END { t = fg; for (i = 1; i <= n; i++) if (lane[i] > beside[i]) t += lane[i] - beside[i]; print t }' <<<"$quick")
[ "$total" -le 2400 ] || problem "the budgets of .ci/run's stages come to $total s, past CI's 2400"

[ $fail = 0 ] && echo "check-ci: .ci/run runs $(wc -l <<<"$quick") stages within $total s of budget (wall), make ci-full $(wc -l <<<"$full"); every check runs somewhere"
exit $fail
