# Table 1.x of chapter 1 (sec:cpu-spread): the last epoch of ./mlp --epochs 3 and of
# ./ring --n_gpus 4 --epochs 3 in each build variant of scripts/matrix.sh, from
# book/data/spread.csv (make bench's "spread" part); the caption names the machine from the
# file's first line. It also defines \spreadhashes and \spreadruns (how many different
# hashes the replicas' weights had, in how many ring runs), \spreadrowsmlp and
# \spreadrowsring (the rows of each program, for \cellrange), and \spreadspan{PROGRAM}{COLUMN}
# (the greatest less the least, a number for \cellclaim).
# Usage: awk -f book/spread_table.awk book/data/spread.csv > spread.tex
BEGIN {
    FS = ","
    what["default"]  = "the book's build"
    what["no-blas"]  = "no OpenBLAS"
    what["no-cuda"]  = "no CUDA toolkit"
    what["no-mpi"]   = "no Open MPI"
    what["clang"]    = "clang (fused multiply-adds)"
    what["gcc-11"]   = "gcc 11"
    what["portable"] = "no \\texttt{-march=native}"
    what["haswell"]  = "OpenBLAS's Haswell kernels"
    what["prescott"] = "OpenBLAS's Prescott kernels"
    what["1-core"]   = "1 core"
    what["8-cores"]  = "8 cores"
}
NR == 1 { machine = $0; sub(/^# machine: /, "", machine); sub(/;.*$/, "", machine); next }
/^#/ || $1 == "run" { next }
{
    split($1, k, "/"); v = k[1]; p = k[2]
    if (!(v in seen)) { order[++n] = v; seen[v] = 1 }
    cell[v, p] = sprintf("%.4f & %.2f & %.2f", $2, $3, $4)
    if ($5 != "") { runs++; if (!($5 in hash)) hashes++; hash[$5] = 1 }
    for (i = 2; i <= 4; i++) {
        if (!((p, i) in lo) || $i + 0 < lo[p, i]) lo[p, i] = $i + 0
        if (!((p, i) in hi) || $i + 0 > hi[p, i]) hi[p, i] = $i + 0
    }
    progs[p] = 1
}
END {
    gsub(/_/, "\\_", machine); gsub(/%/, "\\%", machine)
    printf "\\newcommand{\\spreadhashes}{%d}\\newcommand{\\spreadruns}{%d}%%\n", hashes, runs
    split("loss train_acc test_acc", col, " ")
    print "\\newcommand{\\spreadspan}[2]{\\csname spread@#1@#2\\endcsname}%"
    for (p in progs) for (i = 2; i <= 4; i++)
        printf "\\expandafter\\def\\csname spread@%s@%s\\endcsname{%.6f}%%\n", p, col[i - 1], hi[p, i] - lo[p, i]
    for (i = 1; i <= n; i++) { mlp = mlp (i > 1 ? "," : "") order[i] "/mlp"; ring = ring (i > 1 ? "," : "") order[i] "/ring" }
    printf "\\newcommand{\\spreadrowsmlp}{%s}\\newcommand{\\spreadrowsring}{%s}%%\n", mlp, ring
    print "\\begin{table}[htb]"
    print "\\centering\\small"
    print "\\begin{tabular}{@{}lrrrrrr@{}}"
    print "\\hline"
    print " & \\multicolumn{3}{c}{\\texttt{./mlp}} & \\multicolumn{3}{c}{\\texttt{./ring}, 4 ranks} \\\\"
    print "variant & loss & train \\% & test \\% & loss & train \\% & test \\% \\\\"
    print "\\hline"
    for (i = 1; i <= n; i++) {
        v = order[i]
        printf "%s & %s & %s \\\\\n", (v in what) ? what[v] : v, cell[v, "mlp"], cell[v, "ring"]
    }
    print "\\hline"
    print "\\end{tabular}"
    printf "\\caption{The third and last epoch of \\texttt{./mlp --epochs 3} and of \\texttt{./ring --n\\_gpus 4 --epochs 3} in each build variant of \\texttt{make matrix}, on %s (\\texttt{book/data/spread.csv}). The book's build is gcc's, with \\texttt{-march=native} and OpenBLAS, on every core; each other row changes one thing. The code, the seed and the data are the same in every row; what differs is the order in which the machine adds.}\n", machine
    print "\\label{tab:spread}"
    print "\\end{table}"
}
