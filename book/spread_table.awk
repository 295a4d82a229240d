# Table 1.x of chapter 1 (sec:cpu-spread): the last epoch of ./mlp --epochs 3 and of
# ./ring --n_gpus 4 --epochs 3 in each build variant of scripts/matrix.sh, from
# book/data/spread.csv (make bench's "spread" part); the caption names the machine from the
# file's first line. It also defines \spreadhashes and \spreadruns (how many different
# hashes the replicas' weights had, in how many ring runs) and \spreadrowsmlp and
# \spreadrowsring (the rows of each program, for \cellmin and \cellmax).
# Usage: awk -f book/spread_table.awk book/data/spread.csv > spread.tex
BEGIN {
    FS = ","
    what["default"]  = "the book's build: gcc, \\texttt{-march=native}, OpenBLAS"
    what["no-blas"]  = "without OpenBLAS (\\texttt{gemm\\_plain})"
    what["no-cuda"]  = "without the CUDA toolkit"
    what["no-mpi"]   = "without Open MPI"
    what["clang"]    = "clang (multiply-adds fused)"
    what["gcc-11"]   = "gcc 11"
    what["portable"] = "\\texttt{NATIVE=0}: no \\texttt{-march=native}"
    what["haswell"]  = "OpenBLAS's kernels for Haswell (AVX2)"
    what["prescott"] = "OpenBLAS's kernels for Prescott (SSE3)"
    what["1-core"]   = "one core (\\texttt{taskset -c 0})"
    what["8-cores"]  = "eight cores (as the programs see them)"
}
NR == 1 { machine = $0; sub(/^# machine: /, "", machine); sub(/;.*$/, "", machine); next }
/^#/ || $1 == "run" { next }
{
    split($1, k, "/"); v = k[1]; p = k[2]
    if (!(v in seen)) { order[++n] = v; seen[v] = 1 }
    cell[v, p] = sprintf("%.4f & %.2f & %.2f", $2, $3, $4)
    if ($5 != "") { runs++; if (!($5 in hash)) hashes++; hash[$5] = 1 }
}
END {
    gsub(/_/, "\\_", machine); gsub(/%/, "\\%", machine)
    printf "\\newcommand{\\spreadhashes}{%d}\\newcommand{\\spreadruns}{%d}%%\n", hashes, runs
    for (i = 1; i <= n; i++) { mlp = mlp (i > 1 ? "," : "") order[i] "/mlp"; ring = ring (i > 1 ? "," : "") order[i] "/ring" }
    printf "\\newcommand{\\spreadrowsmlp}{%s}\\newcommand{\\spreadrowsring}{%s}%%\n", mlp, ring
    print "\\begin{table}[htb]"
    print "\\centering\\small"
    print "\\begin{tabular}{@{}lrrrrrr@{}}"
    print "\\hline"
    print " & \\multicolumn{3}{c}{\\texttt{./mlp --epochs 3}} & \\multicolumn{3}{c}{\\texttt{./ring --n\\_gpus 4 --epochs 3}} \\\\"
    print "variant & loss & train \\% & test \\% & loss & train \\% & test \\% \\\\"
    print "\\hline"
    for (i = 1; i <= n; i++) {
        v = order[i]
        printf "%s & %s & %s \\\\\n", (v in what) ? what[v] : v, cell[v, "mlp"], cell[v, "ring"]
    }
    print "\\hline"
    print "\\end{tabular}"
    printf "\\caption{The last epoch of the two sample runs of the README in each build variant of \\texttt{make matrix}, on %s (\\texttt{book/data/spread.csv}). The code, the seed and the data are the same in every row; what differs is the order in which the machine adds.}\n", machine
    print "\\label{tab:spread}"
    print "\\end{table}"
}
