# A timeline figure from one step of a trace (book/data/timeline-*.csv, made by make bench with
# scripts/trace_step.awk): a TikZ picture with three lanes per rank (training, communication,
# waits), time from the start of rank 0's step, 10 cm wide. "compute" is left out: it holds
# the layers' spans, which are drawn instead; so are the phases that wait ("bucket wait"),
# which the third lane shows. Usage: awk -f book/timeline.awk FILE.csv
BEGIN { FS = ","; width = 10.0; lanes = 3 }
/^#/ || /^rank,/ { next }
$5 == "compute" || ($2 == 0 && $5 ~ /wait$/) { next }
{
    n++; rank[n] = $1; lane[n] = $2; t0[n] = $3; dur[n] = $4; label[n] = $5
    if ($3 + $4 > end) end = $3 + $4
    if ($1 + 1 > ranks) ranks = $1 + 1
}
function short(s) {
    if (s ~ /^forward /) return "F" substr(s, 9)
    if (s ~ /^backward /) return "B" substr(s, 10)
    if (s ~ /^gather layer /) return "G" substr(s, 14)
    if (s ~ /^reduce-scatter layer /) return "S" substr(s, 22)
    if (s ~ /^all-reduce bucket /) return "A" substr(s, 19)
    if (s == "update") return "u"
    if (s == "data") return "d"
    return ""
}
function shade(s, l) {
    if (l == 2) return "black!60"
    if (l == 1) return "white"
    if (s ~ /^backward/) return "black!35"
    if (s ~ /^forward/) return "black!12"
    return "black!5"
}
END {
    ms = end / 1000; scale = width / end
    step = ms > 20 ? 5 : ms > 8 ? 2 : ms > 4 ? 1 : 0.5
    print "\\begin{tikzpicture}[x=1cm, y=0.42cm, font=\\scriptsize]"
    for (r = 0; r < ranks; r++)
        for (l = 0; l < lanes; l++) {
            y = -(r * (lanes + 0.6) + l)
            printf "\\node[anchor=east] at (-0.1, %.2f) {%s};\n", y,
                   (l == 0 ? "rank " r ": training" : l == 1 ? "communication" : "waits")
            printf "\\draw[black!20] (0, %.2f) -- (%.2f, %.2f);\n", y, width, y
        }
    for (i = 1; i <= n; i++) {
        y = -(rank[i] * (lanes + 0.6) + lane[i]); x0 = t0[i] * scale; x1 = (t0[i] + dur[i]) * scale
        h = lane[i] == 2 ? 0.15 : 0.35
        printf "\\filldraw[fill=%s, draw=black, line width=0.3pt] (%.3f, %.2f) rectangle (%.3f, %.2f);\n",
               shade(label[i], lane[i]), x0, y - h, (x1 - x0 < 0.02 ? x0 + 0.02 : x1), y + h
        s = short(label[i])
        # a label only where it fits inside its box: about 0.14 cm a character at \scriptsize
        if (s != "" && x1 - x0 >= 0.14 * length(s) + 0.06 && lane[i] < 2)
            printf "\\node[inner sep=0pt] at (%.3f, %.2f) {%s};\n", (x0 + x1) / 2, y, s
    }
    ybot = -((ranks - 1) * (lanes + 0.6) + lanes - 1) - 0.9
    printf "\\draw[->] (0, %.2f) -- (%.2f, %.2f) node[anchor=west] {ms};\n", ybot, width + 0.2, ybot
    for (t = 0; t <= ms + 1e-9; t += step)
        printf "\\draw (%.3f, %.2f) -- ++(0, -0.15) node[anchor=north] {%g};\n", t * 1000 * scale, ybot, t
    print "\\end{tikzpicture}"
}
