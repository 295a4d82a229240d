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
    BEGIN { say["default"] = "as the book builds it"; say["no-blas"] = "without OpenBLAS"
            say["no-cuda"] = "without CUDA"; say["no-mpi"] = "without MPI"; say["clang"] = "with clang"
            say["gcc-11"] = "with gcc 11"; say["portable"] = "without `-march=native`"
            say["haswell"] = "with OpenBLAS'"'"'s Haswell kernels"; say["prescott"] = "with OpenBLAS'"'"'s Prescott kernels"
            say["1-core"] = "on 1 core"; say["8-cores"] = "on 8 cores" }
    { split($1, k, "/"); v = k[1]; p = k[2]; n[p]++
      if (!(v in seen)) { seen[v] = 1; order[++nv] = v }
      for (i = 2; i <= 4; i++) { if (n[p] == 1 || $i + 0 < lo[p, i]) lo[p, i] = $i + 0
                                 if (n[p] == 1 || $i + 0 > hi[p, i]) hi[p, i] = $i + 0 }
      if ($5 != "") { hashes++; if (!($5 in hs)) distinct++; hs[$5] = 1 } }
    function range(p, i, fmt) { return lo[p, i] == hi[p, i] ? sprintf(fmt, lo[p, i]) : sprintf(fmt "-" fmt, lo[p, i], hi[p, i]) }
    END {
      list = ""
      for (j = 1; j <= nv; j++) list = list (j == 1 ? "" : j == nv ? " and " : ", ") ((order[j] in say) ? say[order[j]] : order[j])
      text = sprintf("**How much the machine changes the numbers.** One machine (%s) built and ran the book %d ways (`make matrix`, `book/data/spread.csv`): %s. ", machine, nv, list)
      text = text sprintf("The last epoch of `./mlp --epochs 3` ended with a loss of %s, train accuracy %s%% and test accuracy %s%%; ", range("mlp", 2, "%.4f"), range("mlp", 3, "%.2f"), range("mlp", 4, "%.2f"))
      text = text sprintf("of `./ring --n_gpus 4 --epochs 3`, %s, %s%% and %s%%. ", range("ring", 2, "%.4f"), range("ring", 3, "%.2f"), range("ring", 4, "%.2f"))
      text = text sprintf("The replicas of a run were identical in every variant (a run that finds them different fails), but their hash took %d values in %d runs: it names the weights on one machine and build. ", distinct, hashes)
      text = text "The order in which a CPU and its BLAS add is part of the arithmetic (chapter 1, \"How much the machine changes the numbers\"), so the tests compare runs on the same machine, and the README'"'"'s samples within the tolerances their check states, never to the last digit."
      # wrapped at 92 columns
      m = split(text, w, " "); line = ""
      for (j = 1; j <= m; j++) { if (line != "" && length(line) + 1 + length(w[j]) > 92) { print line; line = w[j] } else line = line (line == "" ? "" : " ") w[j] }
      if (line != "") print line }'
