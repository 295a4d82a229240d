#!/usr/bin/env bash
# The README's paragraph on how much the machine changes the numbers, written from
# book/data/spread.csv (make bench's "spread" part: the last epoch of ./mlp --epochs 3 and
# ./ring --n_gpus 4 --epochs 3 in every variant of scripts/matrix.sh), so that it says what
# the file says: make test fails when the README's part between <!-- spread --> and
# <!-- end --> differs from this output.
set -euo pipefail
f=${1:-book/data/spread.csv}
[ -f "$f" ] || { echo "spread_facts: no $f (make bench BENCH_PARTS=spread)" >&2; exit 2; }
machine=$(head -1 "$f" | sed -n 's/^# machine: \([^;]*\);.*/\1/p' | sed 's/, Linux [^,]*//')
[ -n "$machine" ] || { echo "spread_facts: $f has no machine line" >&2; exit 2; }
grep -v '^#' "$f" | tail -n +2 | awk -F, -v machine="$machine" '
    { split($1, k, "/"); v = k[1]; p = k[2]; n[p]++; variants[v] = 1
      for (i = 2; i <= 4; i++) { if (n[p] == 1 || $i + 0 < lo[p, i]) lo[p, i] = $i + 0
                                 if (n[p] == 1 || $i + 0 > hi[p, i]) hi[p, i] = $i + 0 }
      if ($5 != "") { hashes++; if (!($5 in seen)) distinct++; seen[$5] = 1 } }
    function range(p, i, fmt) { return lo[p, i] == hi[p, i] ? sprintf(fmt, lo[p, i]) : sprintf(fmt "-" fmt, lo[p, i], hi[p, i]) }
    END {
      nv = 0; for (v in variants) nv++
      printf "**How much the machine changes the numbers.** One machine (%s) built and ran the\n", machine
      printf "book %d ways (`make matrix`: gcc and clang, gcc 11, with and without OpenBLAS, `-march=native`\n", nv
      printf "or not, two other OpenBLAS kernel families, 1, 2 and 8 cores; `book/data/spread.csv`). The last\n"
      printf "epoch of `./mlp --epochs 3` ended with a loss of %s, train accuracy %s%% and test\n", range("mlp", 2, "%.4f"), range("mlp", 3, "%.2f")
      printf "accuracy %s%%; of `./ring --n_gpus 4 --epochs 3`, %s, %s%% and %s%%. The replicas of\n", range("mlp", 4, "%.2f"), range("ring", 2, "%.4f"), range("ring", 3, "%.2f"), range("ring", 4, "%.2f")
      printf "a run are identical in every variant, but their hash took %d values in %d runs: it names\n", distinct, hashes
      printf "the weights on one machine and build. The order in which a CPU and its BLAS add is part\n"
      printf "of the arithmetic (chapter 1, \"How much the machine changes the numbers\"), so the tests\n"
      printf "compare runs on the same machine, and the README'"'"'s samples within the tolerances their\n"
      printf "check states, never to the last digit.\n" }'
