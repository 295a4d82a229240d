#!/usr/bin/env bash
# make soak: the whole suite, RUNS times, with LOAD busy processes beside it, and per test the
# number of runs it failed. A test that fails in any run is flaky or broken: either way a bug.
#
#   tests/soak.sh BOOK_TESTS      (make soak passes build/tests/book; RUNS=20, LOAD=2)
#
# One run is the book's tests (Criterion, -j TEST_JOBS) and the tests of every exercise's
# reference solution (build/ex/solution-*, built by tests/grade.sh prove). Each run's TAP
# reports stay in build/soak/ for a look at what failed.
set -uo pipefail

book=${1:?usage: tests/soak.sh BOOK_TEST_BINARY}
runs=${RUNS:-20}
load=${LOAD:-2}
jobs=${TEST_JOBS:-2}
dir=build/soak
rm -rf "$dir" && mkdir -p "$dir"

# The load: busy loops at the lowest priority would barely disturb the tests, so they run at
# the tests' own priority, as another user's build would.
pids=()
stop_load() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; }
trap stop_load EXIT
trap 'exit 130' INT TERM
for ((i = 0; i < load; i++)); do
    bash -c 'while :; do :; done' &
    pids+=($!)
done

echo "soak: $runs run$([ "$runs" = 1 ] || echo s) of the suite with $load busy process$([ "$load" = 1 ] || echo es) beside it ($(nproc) cores)"
solutions=(build/ex/solution-*)
[ -e "${solutions[0]}" ] || solutions=()
total_failed=0 total_tests=0
for ((r = 1; r <= runs; r++)); do
    t0=$(date +%s.%N)
    "$book" --tap="$dir/run$r-book.tap" --timeout 120 -j"$jobs" >"$dir/run$r-book.log" 2>&1
    for s in "${solutions[@]}"; do
        case $s in *.log | *.tap | *.out | *.key) continue ;; esac
        "$s" --tap="$dir/run$r-${s##*/}.tap" --timeout 120 -j1 >/dev/null 2>&1
    done
    tests=$(cat "$dir"/run"$r"-*.tap | grep -cE '^(not )?ok ')
    failed=$(cat "$dir"/run"$r"-*.tap | grep -c '^not ok ')
    # a binary that died before writing its TAP counts as one failure of the whole binary
    for t in "$dir"/run"$r"-*.tap; do
        grep -qE '^(not )?ok ' "$t" || { failed=$((failed + 1)); echo "not ok - ${t##*/}: no test ran" >>"$t"; }
    done
    total_tests=$((total_tests + tests))
    total_failed=$((total_failed + failed))
    printf 'soak: run %d/%d: %d tests, %d failed (%.0f s)\n' "$r" "$runs" "$tests" "$failed" \
        "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
done

if [ "$total_failed" -gt 0 ]; then
    echo "soak: failing tests (runs failed of $runs):"
    cat "$dir"/run*.tap | awk '/^not ok /{sub(/^not ok [0-9]* *- */, ""); sub(/  *\(.*$/, ""); print}' |
        sort | uniq -c | sort -rn | awk '{n = $1; $1 = ""; printf "  %3d  %s\n", n, substr($0, 2)}'
fi
echo "soak: $((total_tests - total_failed)) passed, $total_failed failed"
[ "$total_failed" = 0 ]
