#!/usr/bin/env bash
# The README's sample outputs, from real runs. Each sample is a block of README.md:
#
#   <!-- sample: COMMAND [| rows SIZE...] -->
#   ```
#   what COMMAND printed (with "| rows", only the table rows of those sizes)
#   ```
#   <!-- end -->
#
#   scripts/readme_samples.sh --write    run every sample's command and write its output into
#                                        README.md, with the machine it ran on; it writes
#                                        nothing when a program is missing or fails
#   scripts/readme_samples.sh --check    run them again and fail, naming the sample and the
#                                        first line that differs, when a sample is not what
#                                        the program prints (make test runs this)
#   scripts/readme_samples.sh --timings  time `make test CHAPTER=4` and `make test`, three
#                                        runs each once built, and write the range, with the
#                                        machine, between <!-- timings --> and <!-- end -->
#
# Commands run from the root of the tree with --device cpu added. The check compares two
# things. The form: every line as printed with its numbers masked, the device line and the
# time breakdown aside. And the numbers a reader would quote, within tolerances, never to
# the last digit: how a CPU and its BLAS add moves the last digits of a loss and tips a few
# samples of an accuracy (chapter 1, "How much the CPU changes"), so another machine may
# print other digits from the same correct code. The tolerances, stated once:
#   the loss of an epoch         within LOSS_TOL (1%) of the README's, relative;
#   an accuracy (train or test)  within ACC_TOL (1.0) percentage points of the README's;
#   the sizes and #wrong columns of the transport's and the collectives' tables exactly
#   (a size is the command's; #wrong is 0 on every machine).
# The timings (seconds, samples/s, ms/step, us, GB/s, the fit, the breakdown) and the
# replicas' hash (the same on the four ranks of a run, but each machine's own) are checked
# for their form only.
LOSS_TOL=${LOSS_TOL:-0.01}
ACC_TOL=${ACC_TOL:-1.0}
set -uo pipefail
mode=${1:-}
case "$mode" in --write|--check|--timings) ;; *) echo "usage: scripts/readme_samples.sh --write|--check|--timings" >&2; exit 2 ;; esac
readme=${README:-README.md} # README=FILE checks another copy (the tests do)
scratch=$(mktemp) sample_status=0
trap 'rm -f "$scratch"' EXIT
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)

# Run one sample's command (with --device cpu) and print what the README shows of it.
run_sample() {
    local spec=$1 cmd rows=
    cmd=${spec%%|*}
    [[ "$spec" == *"| rows "* ]] && rows=${spec#*| rows }
    # shellcheck disable=SC2086
    $cmd --device cpu > "$scratch" 2>&1
    sample_status=$?
    awk -v rows="$rows" '
        BEGIN { n = split(rows, keep, " "); for (i = 1; i <= n; i++) want[keep[i]] = 1 }
        { sub(/[ \t]+$/, "") }
        rows == "" { print; next }
        /^ *[0-9]+ / { if ($1 in want) print; next }
        /^# *size|^# *\(B\)|^# barrier|^# alpha-beta/ { print }' "$scratch"
    return "$sample_status"
}

# The form of a sample: the device line dropped, every number masked, but for the sizes and
# #wrong of the tables' rows (those are compared exactly).
form() {
    awk '
        /^(  device |# device )/ { next }
        /^ *[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$/ { print $1, "#", $6; next }
        /^ *[0-9]+ +[0-9]+ +float / { print $1, $2, $3, "#", $7; next }
        /^# alpha-beta fit:/ { print "# alpha-beta fit:"; next } # a noisy run says so instead
        { sub(/[ \t]+$/, ""); sub(/hash [0-9a-f]+/, "hash #"); gsub(/[0-9][0-9,.]*/, "#"); gsub(/ +/, " "); print }'
}

# The numbers of a sample that are compared within the tolerances: per epoch line, the
# loss, the train and the test accuracy.
epochs() {
    awk '/^epoch [0-9]+\/[0-9]+  loss/ {
        loss = $4; tr = $6; te = $8; sub(/%/, "", tr); sub(/%/, "", te); print $2, loss, tr, te }'
}

if [ "$mode" = --timings ]; then
    make --no-print-directory all build/tests/book >/dev/null 2>&1 || { echo "readme_samples: the build failed" >&2; exit 1; }
    range() { # the range of three runs of "$@", in whole seconds
        local t a=() i
        for i in 1 2 3; do
            local t0; t0=$(date +%s.%N)
            "$@" >/dev/null 2>&1 || { echo "readme_samples: $* failed" >&2; exit 1; }
            t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
            a+=("$t")
        done
        printf '%s\n' "${a[@]}" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f", lo; if (sprintf("%.0f", hi) != sprintf("%.0f", lo)) printf "-%.0f", hi; printf " s" }'
    }
    one=$(range make --no-print-directory test CHAPTER=4)
    all=$(range make --no-print-directory test)
    line="Once built, on $cpu ($(nproc) cores): \`make test CHAPTER=4\` takes $one and \`make test\` $all (three runs each, $(date +%Y-%m-%d))."
    awk -v line="$line" '/^<!-- timings -->$/ { print; print line; skip = 1; next }
        skip && /^<!-- end -->$/ { skip = 0 } !skip { print }' "$readme" > "$readme.new" && mv "$readme.new" "$readme"
    echo "readme_samples: $line"
    exit 0
fi

specs=$(sed -n 's/^<!-- sample: \(.*\) -->$/\1/p' "$readme")
[ -n "$specs" ] || { echo "readme_samples: no sample in $readme" >&2; exit 2; }

if [ "$mode" = --write ]; then
    tmp=$(mktemp)
    while IFS= read -r spec; do
        prog=${spec%% *}
        [ -x "$prog" ] || { echo "readme_samples: $prog is not built (make first): nothing written" >&2; rm -f "$tmp" "$tmp".*; exit 1; }
        out="$tmp.$(printf '%s' "$spec" | md5sum | cut -c1-8)"
        if ! run_sample "$spec" > "$out"; then
            echo "readme_samples: '$spec' failed (exit $sample_status): nothing written" >&2
            sed 's/^/  /' "$out" | tail -5 >&2
            rm -f "$tmp" "$tmp".*; exit 1
        fi
    done <<<"$specs"
    awk -v tmp="$tmp" -v cpu="$cpu" '
        /^<!-- samples recorded on: / { print "<!-- samples recorded on: " cpu " -->"; next }
        /^<!-- sample: / {
            print; spec = $0; sub(/^<!-- sample: /, "", spec); sub(/ -->$/, "", spec)
            cmd = "printf %s \"" spec "\" | md5sum | cut -c1-8"; cmd | getline h; close(cmd)
            print "```"; f = tmp "." h
            while ((getline line < f) > 0) print line
            close(f); print "```"; skip = 1; next }
        skip && /^<!-- end -->$/ { skip = 0 }
        !skip { print }' "$readme" > "$tmp.readme" && mv "$tmp.readme" "$readme"
    rm -f "$tmp" "$tmp".*
    echo "readme_samples: $(wc -l <<<"$specs") samples written into $readme (on $cpu)"
    exit 0
fi

fail=0 n=0
while IFS= read -r spec; do
    n=$((n + 1))
    shown=$(awk -v spec="$spec" '
        $0 == "<!-- sample: " spec " -->" { on = 1; next }
        on && /^```/ { if (inside) exit; inside = 1; next }
        on && inside { print }' "$readme")
    now=$(run_sample "$spec")
    st=$? # run_sample ran in a subshell: its status, not sample_status, comes back here
    [ "$st" = 0 ] || { echo "readme_samples: '$spec' failed (exit $st):" >&2; tail -3 <<<"$now" >&2; fail=1; continue; }
    diff_out=$(diff <(form <<<"$shown") <(form <<<"$now"))
    if [ -n "$diff_out" ]; then
        echo "readme_samples: the sample of '$spec' is not what it prints now (< README, > the program; numbers masked):" >&2
        head -6 <<<"$diff_out" >&2
        fail=1
        continue
    fi
    far=$(paste -d' ' <(epochs <<<"$shown") <(epochs <<<"$now") | awk -v lt="$LOSS_TOL" -v at="$ACC_TOL" '
        function abs(x) { return x < 0 ? -x : x }
        abs($6 - $2) > lt * abs($2) { printf "epoch %s: loss %s, the README says %s (more than %g%% apart)\n", $1, $6, $2, 100 * lt }
        abs($7 - $3) > at { printf "epoch %s: train_acc %s%%, the README says %s%% (more than %g points apart)\n", $1, $7, $3, at }
        abs($8 - $4) > at { printf "epoch %s: test_acc %s%%, the README says %s%% (more than %g points apart)\n", $1, $8, $4, at }')
    if [ -n "$far" ]; then
        echo "readme_samples: the sample of '$spec' is not what it prints now:" >&2
        head -6 <<<"$far" >&2
        fail=1
    fi
done <<<"$specs"
[ "$fail" = 0 ] && echo "readme_samples: $n samples match what the programs print (their form; losses within $(awk -v t="$LOSS_TOL" 'BEGIN { print 100 * t }')%, accuracies within $ACC_TOL points)"
exit "$fail"
