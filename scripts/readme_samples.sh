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
#                                        README.md, with the machine it ran on
#   scripts/readme_samples.sh --check    run them again and fail, naming the sample and the
#                                        first line that differs, when a sample is not what
#                                        the program prints (make test runs this)
#   scripts/readme_samples.sh --timings  time `make test CHAPTER=4` and `make test`, three
#                                        runs each once built, and write the range, with the
#                                        machine, between <!-- timings --> and <!-- end -->
#
# Commands run from the root of the tree with --device cpu added. What a run cannot repeat is
# left out of the comparison: the device line, every timing (seconds, samples/s, ms/step,
# us, GB/s, the time breakdown), and, on a processor other than the one the README names,
# the figures that depend on the order in which the BLAS adds (the accuracies and the hash
# of the weights; the losses agree to the printed digit on every machine seen so far).
set -uo pipefail
mode=${1:-}
case "$mode" in --write|--check|--timings) ;; *) echo "usage: scripts/readme_samples.sh --write|--check|--timings" >&2; exit 2 ;; esac
readme=${README:-README.md} # README=FILE checks another copy (the tests do)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
recorded=$(sed -n 's/^<!-- samples recorded on: \(.*\) -->$/\1/p' "$readme" | head -1)

# Run one sample's command (with --device cpu) and print what the README shows of it.
run_sample() {
    local spec=$1 cmd rows=
    cmd=${spec%%|*}
    [[ "$spec" == *"| rows "* ]] && rows=${spec#*| rows }
    # shellcheck disable=SC2086
    $cmd --device cpu 2>&1 | awk -v rows="$rows" '
        BEGIN { n = split(rows, keep, " "); for (i = 1; i <= n; i++) want[keep[i]] = 1 }
        { sub(/[ \t]+$/, "") }
        rows == "" { print; next }
        /^ *[0-9]+ / { if ($1 in want) print; next }
        /^# *size|^# *\(B\)|^# barrier|^# alpha-beta/ { print }'
}

# What of a sample is compared: without the device line and the timings (and, with
# blas_too, the figures that depend on the BLAS's order of addition).
mask() {
    awk -v blas_too="$1" '
        /^(  device |# device )/ { next }
        /^epoch [0-9]+\/[0-9]+  loss/ {
            line = $0; sub(/  [0-9.]+ s  .*$/, "", line)
            if (blas_too) gsub(/[0-9.]+%/, "#%", line)
            print line; next }
        /^time: / { gsub(/[0-9][0-9.]*/, "#"); print; next }
        /^replicas: / && blas_too { sub(/hash [0-9a-f]+/, "hash #") }
        /^# (barrier|alpha-beta fit|average bus bandwidth)/ { gsub(/[0-9]+\.[0-9]+/, "#"); print; next }
        /^ *[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$/ { print $1, $6; next }
        /^ *[0-9]+ +[0-9]+ +float / { print $1, $2, $3, $7; next }
        { print }'
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
        run_sample "$spec" > "$tmp.$(printf '%s' "$spec" | md5sum | cut -c1-8)"
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

blas_too=0
[ "$cpu" = "$recorded" ] || blas_too=1
fail=0 n=0
while IFS= read -r spec; do
    n=$((n + 1))
    shown=$(awk -v spec="$spec" '
        $0 == "<!-- sample: " spec " -->" { on = 1; next }
        on && /^```/ { if (inside) exit; inside = 1; next }
        on && inside { print }' "$readme")
    diff_out=$(diff <(mask "$blas_too" <<<"$shown") <(run_sample "$spec" | mask "$blas_too"))
    if [ -n "$diff_out" ]; then
        echo "readme_samples: the sample of '$spec' is not what it prints now (< README, > the program):" >&2
        head -6 <<<"$diff_out" >&2
        fail=1
    fi
done <<<"$specs"
[ "$fail" = 0 ] && echo "readme_samples: $n samples match what the programs print$([ "$blas_too" = 1 ] && echo " (on $cpu, not the README's $recorded: accuracies and hashes not compared)")"
exit "$fail"
