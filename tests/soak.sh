#!/usr/bin/env bash
# make soak: the whole suite, RUNS times, with LOAD busy processes beside it, and per test the
# number of runs it failed. A test that fails in any run is flaky or broken: either way a bug.
#
#   tests/soak.sh BOOK_TESTS      (make soak passes build/tests/book; RUNS=20, LOAD=2)
#
# One run is the book's tests (Criterion, -j TEST_JOBS) and the tests of every exercise's
# reference solution (build/ex/solution-*, built by tests/grade.sh solutions). Each run's TAP
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
# The reference solutions' test binaries of the exercises in the MANIFEST (grade.sh solutions
# built them); nothing else in build/ex.
solutions=()
while read -r ch name _; do
    [ -x "build/ex/solution-$ch-$name" ] && solutions+=("build/ex/solution-$ch-$name")
done < <(grep -v '^#' exercises/MANIFEST | awk 'NF')
total_failed=0 total_tests=0
# Run test binary $1 with its TAP in $2; a binary that fails without a failing test in its
# TAP (it crashed, or died before writing it) counts as one failure of the whole binary.
run_one() {
    local bin=$1 tap=$2 j=$3
    rm -f "$tap"
    "$bin" --tap="$tap" --timeout 120 -j"$j" >"${tap%.tap}.log" 2>&1
    local status=$?
    if [ $status != 0 ] && ! grep -q '^not ok ' "$tap" 2>/dev/null; then
        echo "not ok - ${bin##*/}: exit status $status, no failing test named" >>"$tap"
    fi
}
for ((r = 1; r <= runs; r++)); do
    t0=$(date +%s.%N)
    run_one "$book" "$dir/run$r-book.tap" "$jobs"
    for s in "${solutions[@]}"; do
        run_one "$s" "$dir/run$r-${s##*/}.tap" 1
    done
    tests=$(cat "$dir"/run"$r"-*.tap | grep -cE '^(not )?ok ')
    failed=$(cat "$dir"/run"$r"-*.tap | grep -c '^not ok ')
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
