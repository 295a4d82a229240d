# make book: the page of every label that two builds of the book both define, from their
# .aux files, and the labels whose pages differ. The students' edition and the instructor's
# must paginate alike (the answers stand after every other page: book/style.tex).
#
#   awk -f book/pages.awk STUDENTS.aux INSTRUCTORS.aux     (exit 1 on a difference)
#
# A line \newlabel{NAME}{{NUMBER}{PAGE}...} (a section, figure, table, problem) or
# \newsublabel{NAME}{{SUB}{PAGE}} (noweb's, one a code chunk): PAGE is the second brace group
# of the second argument, read by counting braces (a title may hold braces of its own).
function page_of(line,    i, c, depth, group, start, rest) {
    rest = substr(line, index(line, "}{") + 1) # the second argument, from its "{"
    depth = 0; group = 0
    for (i = 1; i <= length(rest); i++) {
        c = substr(rest, i, 1)
        if (c == "{") { depth++; if (depth == 2) { group++; start = i + 1 } }
        else if (c == "}") { if (depth == 2 && group == 2) return substr(rest, start, i - start); depth-- }
        if (depth == 0) break
    }
    return ""
}
/^\\new(sub)?label\{/ {
    name = substr($0, index($0, "{") + 1, index($0, "}{") - index($0, "{") - 1)
    if (FILENAME == ARGV[1]) { first[name] = page_of($0); next }
    if (!(name in first)) next
    both++
    p = page_of($0)
    if (p != first[name] && bad++ < 20) printf "  %s: page %s in %s, %s in %s\n", name, first[name], ARGV[1], p, ARGV[2]
}
END {
    if (bad) { printf "book: %d of %d labels are on other pages in the two editions (above)\n", bad, both > "/dev/stderr"; exit 1 }
    printf "book: the two editions paginate alike (%d labels on the same pages)\n", both
}
