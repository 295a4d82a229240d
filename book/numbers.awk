# The hand-typed measurements of the prose: every number written next to a unit of time,
# rate, size or ratio (us, ms, s, GB/s, MB/s, GFLOP/s, samples/s, KiB, MiB, GiB, %, x,
# "times") in the text of chapters/*.nw, outside code chunks and outside the \cell macros
# that draw numbers from book/data. Sizes the book chooses (1, 2, 4, ... 512 KiB, MiB or GiB)
# are definitions, not measurements, and so is every line of book/numbers-allow.txt.
# Each finding is "FILE<TAB>NUMBER-AND-UNIT"; make book compares them with
# book/numbers-known.txt, the ones not yet drawn from data, and fails on any other.
# Usage: awk -f book/numbers.awk book/numbers-allow.txt chapters/*.nw
FILENAME ~ /numbers-allow\.txt$/ { if ($0 !~ /^#/ && NF) allow[$0] = 1; next }
FNR == 1 { code = 0; file = FILENAME; sub(/.*\//, "", file) }
/^<<.*>>=$/ { code = 1; next }
/^@( |$)/ { code = 0; next }
code { next }
{
    line = $0
    while (match(line, /\\cell[a-z]*(\[[0-9]\])?(\{[^{}]*(\{[^{}]*\}[^{}]*)*\})+/))
        line = substr(line, 1, RSTART - 1) substr(line, RSTART + RLENGTH)
    gsub(/\{,\}/, ",", line)
    gsub(/\$\\mu\$s/, "us", line)
    gsub(/\\%/, "%", line)
    gsub(/\$\\times\$/, "x", line)
    rest = line
    while (match(rest, /[0-9][0-9.,]*\$?(~|\\,| )?(us|ms|s|GB\/s|MB\/s|GFLOP\/s|samples\/s|KiB|MiB|GiB|KB|MB|GB|ns|%|x|times)([^A-Za-z0-9]|$)/)) {
        hit = substr(rest, RSTART, RLENGTH); before = RSTART > 1 ? substr(rest, RSTART - 1, 1) : ""
        rest = substr(rest, RSTART + RLENGTH)
        if (before ~ /[A-Za-z0-9_.{\\^-]/) continue  # inside a word, a name or an exponent
        sub(/[^A-Za-z0-9%\/]$/, "", hit)
        n = hit; sub(/\$?(~|\\,| )?[A-Za-z%\/]+$/, "", n); u = substr(hit, length(n) + 1)
        sub(/^\$?(~|\\,| )?/, "", u)
        sub(/[.,]$/, "", n)
        if (u ~ /^(KiB|MiB|GiB)$/ && n ~ /^(1|2|4|8|16|32|64|128|256|512)$/) continue
        if (n ~ /^[0-9]$/ && u == "times") continue   # "2 times": a count, not a measure
        key = file "\t" n " " u
        if (key in allow) continue
        print key
    }
}
