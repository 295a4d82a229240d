# The table of a GPU run (book/data/gpu_runs_*.csv, scripts/import_gpu_run.sh): each command,
# its ranks, and its final loss and accuracies, or "refused"; the caption names the machine
# from the file's first line. Usage: awk -f book/runs_table.awk FILE.csv > FILE.tex
BEGIN { FS = "," }
NR == 1 { machine = $0; sub(/^# machine: /, "", machine); sub(/; without MPS.*/, "", machine); next }
/^#/ || $1 == "run" { next }
{
    split($2, w, " ")
    strategy = flag($2, "--strategy"); opt = flag($2, "--optimizer")
    if (strategy == "") strategy = w[1] == "./ring" ? "ring" : "single"
    if (opt != "") strategy = strategy ", " opt
    gsub(/_/, "\\_", strategy)
    n++
    row[n] = sprintf("\\texttt{%s} & \\texttt{%s} & %s & %s & %s & %s & %s \\\\", w[1], strategy,
                     $3, flag($2, "--epochs"), $4 == 0 ? $5 : "refused", pct($6), pct($7))
}
function flag(cmd, name,    k, m, i) {
    m = split(cmd, k, " ")
    for (i = 1; i < m; i++) if (k[i] == name) return k[i + 1]
    return ""
}
function pct(x) { return x == "" ? "" : sprintf("%.2f\\%%", 100 * x) }
END {
    gsub(/_/, "\\_", machine); gsub(/%/, "\\%", machine)
    print "\\begin{table}[htb]"
    print "\\centering\\small"
    print "\\begin{tabular}{@{}llrrrrr@{}}"
    print "\\hline"
    print "program & strategy & ranks & epochs & loss & train acc. & test acc. \\\\"
    print "\\hline"
    for (i = 1; i <= n; i++) print row[i]
    print "\\hline"
    print "\\end{tabular}"
    printf "\\caption{Every program and strategy on one GPU, without CUDA MPS: %s. Each ran with \\texttt{--device cuda}; the figures are those of the last epoch; a refused run says why in one line before it starts. The epochs of the AdamW run were not logged.}\n", machine
    print "\\label{tab:gpu-runs}"
    print "\\end{table}"
}
