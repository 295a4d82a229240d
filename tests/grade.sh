#!/usr/bin/env bash
# The exercise harness. Called by make, which passes CC, CFLAGS, LDLIBS and LIB.
#
#   tests/grade.sh test  [CHAPTER]  run the tests of every started exercise in exercises/;
#                                   list the untouched ones as not started; fail if a
#                                   started one fails (make test)
#   tests/grade.sh grade [CHAPTER]  score table, results.json (Gradescope); exit 0 only at
#                                   full marks (make grade)
#   tests/grade.sh prove [CHAPTER]  every solution scores full marks and every pristine
#                                   skeleton scores zero (make test, when solutions/ exists)
#   tests/grade.sh replacing        "chN/name:book_function" for each started exercise that
#                                   replaces a book function (make chapterN EXERCISES=1)
#
# exercises/MANIFEST lists each exercise: chapter, name, stars, points, the book function
# it replaces (or -), the SHA-256 of its pristine skeleton, and its title. An exercise
# whose file still has that hash is "not started".
set -uo pipefail

mode=${1:?usage: tests/grade.sh test|grade|prove|replacing [CHAPTER]}
only=${2:-}
only=${only#ch}
: "${CC:=gcc}" "${CFLAGS:=}" "${LDLIBS:=}" "${LIB:=build/libdps.a}"
manifest=exercises/MANIFEST
work=build/ex
mkdir -p "$work" 2>/dev/null

[ -f "$manifest" ] || { echo "grade: $manifest is missing" >&2; exit 1; }

hash_of() { sha256sum "$1" | cut -c1-64; }
# Whether exercise $1/$2 has changed from the pristine skeleton whose hash is $3.
started() { [ "$(hash_of "exercises/$1/$2.c")" != "$3" ]; }

# Build the tests of exercise $1/$2 against source file $3 into $4; compiler output in $4.log.
# A binary is rebuilt only when its key changes: the compiler and its flags, and the content
# of every input (the tests, the exercise, the test headers, the book's headers and library).
build() {
    local ch=$1 name=$2 src=$3 bin=$4 key
    key=$({ echo "$CC $CFLAGS $LDLIBS $src"; cat tests/"$ch"/ex_"$name".c "$src" tests/*.h \
            tests/"$ch"/*.h exercises/"$ch"/*.h tangled/*/*.h "$LIB" 2>/dev/null; } | sha256sum | cut -c1-64)
    [ -x "$bin" ] && [ "$(cat "$bin.key" 2>/dev/null)" = "$key" ] && return 0
    rm -f "$bin.key"
    $CC $CFLAGS -Itests -Iexercises/"$ch" tests/"$ch"/ex_"$name".c "$src" "$LIB" \
        -o "$bin" -lcriterion $LDLIBS >"$bin.log" 2>&1 && echo "$key" >"$bin.key"
}

# Run binary $1; sets passed, total, and failures (the failed tests' messages).
run() {
    local bin=$1 tap=$1.tap
    "$bin" --tap="$tap" --timeout 120 -j1 >"$bin.out" 2>&1
    passed=$(grep -c '^ok ' "$tap")
    total=$(grep -cE '^(not )?ok ' "$tap")
    failures=$(awk '/^not ok /{sub(/^not ok - /, ""); sub(/  \(.*$/, ""); print "FAILED " $0; next}
                    /Assertion failed:|Test timed out|crashed|CRASH/{sub(/^ +/, ""); print "   " $0}' "$tap")
    [ "$total" -gt 0 ] || { total=1; passed=0; failures="no test ran: $(tail -3 "$bin.out")"; }
}

# Points for $passed of $total tests of an exercise worth $1 points (one decimal).
points() { awk -v p="$1" -v a="$passed" -v t="$total" 'BEGIN { printf "%.1f", p * a / t }'; }

# The exercises to consider: "ch name stars points replaces hash title" lines.
entries() { grep -v '^#' "$manifest" | awk -v c="$only" 'NF && (c == "" || $1 == "ch" c)'; }

status=0
case $mode in
test)
    started=0 not_started=0
    while read -r ch name stars points replaces hash title; do
        file=exercises/$ch/$name.c
        if ! started "$ch" "$name" "$hash"; then
            printf 'exercise %-28s not started\n' "$ch/$name"
            not_started=$((not_started + 1))
            continue
        fi
        started=$((started + 1))
        bin=$work/student-$ch-$name
        if ! build "$ch" "$name" "$file" "$bin"; then
            printf 'exercise %-28s DOES NOT COMPILE\n' "$ch/$name"
            sed 's/^/   /' "$bin.log" | head -20
            status=1
            continue
        fi
        run "$bin"
        if [ "$passed" = "$total" ]; then
            printf 'exercise %-28s passed %d/%d tests\n' "$ch/$name" "$passed" "$total"
        else
            printf 'exercise %-28s FAILED %d of %d tests\n' "$ch/$name" $((total - passed)) "$total"
            printf '%s\n' "$failures" | sed 's/^/   /'
            status=1
        fi
    done < <(entries)
    echo "exercises: $started started, $not_started not started$([ $status = 0 ] || echo ', some FAILED')"
    ;;

grade)
    json_tests=() earned_total=0 max_total=0
    printf '%-5s %-26s %-5s %8s  %s\n' "" "exercise" "stars" "points" "title"
    while read -r ch name stars points replaces hash title; do
        file=exercises/$ch/$name.c
        bin=$work/student-$ch-$name
        stars_s=$(printf '%*s' "$stars" '' | tr ' ' '*')
        output="" info=""
        if ! started "$ch" "$name" "$hash"; then
            passed=0 total=1 output="not started"
        elif ! build "$ch" "$name" "$file" "$bin"; then
            passed=0 total=1 output="does not compile: $(head -5 "$bin.log")"
        else
            run "$bin"
            output=$failures
            info=$(grep '^info:' "$bin.out" || true)
        fi
        got=$(points "$points")
        earned_total=$(awk -v a="$earned_total" -v b="$got" 'BEGIN { printf "%.1f", a + b }')
        max_total=$((max_total + points))
        printf '%-5s %-26s %-5s %4s/%-3s  %s%s\n' "$ch" "$name" "$stars_s" "$got" "$points" "$title" \
            "$([ "$output" = "not started" ] && echo ' (not started)')"
        [ -n "$output" ] && [ "$output" != "not started" ] && printf '%s\n' "$output" | sed 's/^/        /'
        [ -n "$info" ] && printf '%s\n' "$info" | sed 's/^/        /'
        esc=$(printf '%s' "$output" | sed 's/\\/\\\\/g; s/"/\\"/g' | awk '{printf "%s\\n", $0}')
        json_tests+=("{\"name\": \"$ch/$name: $title\", \"score\": $got, \"max_score\": $points, \"output\": \"$esc\"}")
    done < <(entries)
    printf '%-5s %-26s %-5s %4s/%-3s\n' "" "total" "" "$earned_total" "$max_total"
    {
        printf '{\n  "score": %s,\n  "max_score": %s,\n  "tests": [\n' "$earned_total" "$max_total"
        for i in "${!json_tests[@]}"; do
            printf '    %s%s\n' "${json_tests[$i]}" "$([ "$i" -lt $((${#json_tests[@]} - 1)) ] && echo ,)"
        done
        printf '  ]\n}\n'
    } > results.json
    echo "grade: results.json written"
    awk -v a="$earned_total" -v b="$max_total" 'BEGIN { exit !(a == b) }' || status=1
    ;;

prove)
    [ -d solutions ] || { echo "prove: no solutions/ (a handout): skipped"; exit 0; }
    checked=0
    while read -r ch name stars points replaces hash title; do
        # Every solution passes every test.
        bin=$work/solution-$ch-$name
        if ! build "$ch" "$name" "solutions/$ch/$name.c" "$bin"; then
            echo "prove: solutions/$ch/$name.c does not compile:"; sed 's/^/   /' "$bin.log" | head
            status=1; continue
        fi
        run "$bin"
        if [ "$passed" != "$total" ]; then
            echo "prove: solutions/$ch/$name.c fails $((total - passed)) of $total tests:"
            printf '%s\n' "$failures" | sed 's/^/   /'
            status=1
        fi
        # Every pristine skeleton fails every test: a test that passes on it cannot fail.
        skel=exercises/$ch/$name.c
        if started "$ch" "$name" "$hash"; then
            skel=$work/pristine-$ch-$name.c
            if ! git show "HEAD:exercises/$ch/$name.c" >"$skel" 2>/dev/null || [ "$(hash_of "$skel")" != "$hash" ]; then
                echo "prove: exercises/$ch/$name.c is edited and no pristine copy matches the MANIFEST hash:"
                echo "       if you changed the skeleton on purpose, run make manifest"
                status=1; continue
            fi
        fi
        bin=$work/skeleton-$ch-$name
        if ! build "$ch" "$name" "$skel" "$bin"; then
            echo "prove: the skeleton of $ch/$name does not compile:"; sed 's/^/   /' "$bin.log" | head
            status=1; continue
        fi
        run "$bin"
        if [ "$passed" != 0 ]; then
            echo "prove: the untouched skeleton of $ch/$name passes $passed of $total tests:"
            awk '/^ok /{sub(/^ok - /, ""); sub(/  \(.*$/, ""); print "   passes " $0}' "$bin.tap"
            status=1
        fi
        checked=$((checked + 1))
    done < <(entries)
    [ $status = 0 ] && echo "prove: $checked solutions score full marks and their $checked skeletons score zero"
    ;;
replacing)
    while read -r ch name stars points replaces hash title; do
        [ "$replaces" != - ] && started "$ch" "$name" "$hash" && echo "$ch/$name:$replaces"
    done < <(entries)
    ;;
*)
    echo "usage: tests/grade.sh test|grade|prove|replacing [CHAPTER]" >&2
    exit 2
    ;;
esac
exit $status
