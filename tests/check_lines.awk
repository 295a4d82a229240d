# Check the #line directives of the tangled C and CUDA: every line that starts a statement
# (the line after one ending in ; { } : or */, or after a directive) must hold text of the
# chapter line its directive says, so that a compiler message points at the chapter.
# Lines inside a statement that clang-format wrapped anew may be a line off; they are not
# checked. No directive may repeat an earlier one of its file (a chapter line that
# clang-format split into several statements: write it as clang-format would), nor stand
# right before else, case or default. Prints each mismatch and exits 1, or one line of counts.
# Usage: awk -f tests/check_lines.awk FILE...
function nb(s) { gsub(/[ \t\r\n\f\v]/, "", s); gsub(/@<</, "<<", s); gsub(/@>>/, ">>", s); return s }
# Whether @a starts with the end of @b (a line wrapped anew starts inside a chapter line),
# or lies inside @b (a chapter line split in several).
function begins_with_tail(a, b,    k) {
    if (index(b, a) > 0) return 1
    for (k = 1; k <= length(b); k++)
        if (index(a, substr(b, k)) == 1) return 1
    return 0
}
FNR == 1 { file = ""; safe = 1; delete seen; prev = "" }
/^#line [0-9]+ "/ && seen[$0]++ {
    printf "lines: %s:%d repeats the directive %s\n", FILENAME, FNR, $0 > "/dev/stderr"
    bad++
}
/^[ \t]*(else|case|default)([^A-Za-z0-9_]|$)/ && prev ~ /^#line / {
    printf "lines: %s:%d: a directive before '%s'\n", FILENAME, FNR, $0 > "/dev/stderr"
    bad++
}
{ prev = $0 }
/^#line [0-9]+ "/ {
    line = substr($0, 7) + 0; file = $0; sub(/^#line [0-9]+ "/, "", file); sub(/"$/, "", file)
    safe = 1; next
}
{
    a = nb($0)
    if (file != "" && a != "") {
        if (!(file in loaded)) {
            n = 0
            while ((getline l < file) > 0) src[file, ++n] = l
            close(file); loaded[file] = 1
        }
        b = nb(src[file, line])
        if (safe) {
            checked++
            if (b == "" || !begins_with_tail(a, b)) {
                printf "lines: %s:%d says %s:%d, which holds '%s'\n", FILENAME, FNR, file, line,
                       src[file, line] > "/dev/stderr"
                bad++
            }
        }
    }
    if (file != "") line++
    if (a != "") safe = a ~ /([;{}:]|\*\/)$/ || a ~ /^#/
}
END {
    if (bad) exit 1
    printf "lines: %d statements begin on the chapter line their #line says\n", checked
}
