# The cells of the book's data, for the prose: every CSV of book/data (but the timelines,
# which are drawn, not quoted, and give only their machine) becomes lines \defcell{FILE}{ROW}{COLUMN}{VALUE}, where FILE is
# the file's name without .csv, ROW the row's first cell (and, for files whose first cell
# repeats, also its first two or three cells joined by /) and COLUMN the header's name.
# The first line's machine is \cell{FILE}{machine}{line}. \cell{FILE}{ROW}{COLUMN}
# (book/style.tex) prints a cell, and stops the build when it is not
# there, so that the prose never quotes a number its data does not hold.
# Usage: awk -f book/cells.awk book/data/*.csv > cells.tex
FNR == 1 {
    file = FILENAME; sub(/.*\//, "", file); sub(/\.csv$/, "", file)
    header = 0; skip = file ~ /^timeline-/
}
FNR == 1 && /^# machine: / { # the machine, without what follows a ";" (the ranks, a command)
    line = $0; sub(/^# machine: /, "", line); sub(/;.*$/, "", line)
    printf "\\defcell{%s}{machine}{line}{%s}\n", file, tex(line)
}
skip || /^#/ || !NF { next }
{
    n = split($0, cell, ",")
    if (!header) { for (i = 1; i <= n; i++) name[i] = cell[i]; cols = n; header = 1; next }
    for (i = 2; i <= cols; i++)
        printf "\\defcell{%s}{%s}{%s}{%s}\n", file, cell[1], name[i], tex(cell[i])
    for (i = 3; i <= cols; i++) # rows whose first cell repeats: named by their first two
        printf "\\defcell{%s}{%s/%s}{%s}{%s}\n", file, cell[1], cell[2], name[i], tex(cell[i])
    for (i = 4; i <= cols; i++) # ... or three cells
        printf "\\defcell{%s}{%s/%s/%s}{%s}{%s}\n", file, cell[1], cell[2], cell[3], name[i],
               tex(cell[i])
}
function tex(s) {
    gsub(/\\/, "\\textbackslash{}", s)
    gsub(/[_%#&$]/, "\\\\&", s)
    gsub(/~/, "\\textasciitilde{}", s)
    return s
}
