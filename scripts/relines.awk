# Put back the #line directives that clang-format makes wrong.
#
# notangle -L writes `#line N "chapter.nw"` at the start of every chunk; clang-format then
# re-indents, and sometimes joins or splits lines, so the lines after a directive stop
# matching the chapter. clang-format changes only white space, so the characters that are
# not white space are the same, in the same order, before and after: the K-th of them in
# the formatted file stands where the K-th stood in notangle's output, whose chapter line
# the directives tell. This script reads notangle's output (RAW, first) and the formatted
# file (second), drops the formatted file's directives, and writes a directive before a
# line whose chapter line is not the one the previous line implies, as soon as a statement
# or a block has ended (a directive inside an expression would be reformatted).
#
# Usage: awk -f scripts/relines.awk RAW FORMATTED > OUT
function nonblank(s) { gsub(/[ \t\r\n\f\v]/, "", s); return s }
FNR == NR {
    if (match($0, /^#line [0-9]+ "/)) {
        line = substr($0, 7) + 0; file = $0; sub(/^#line [0-9]+ "/, "", file); sub(/"$/, "", file)
        next
    }
    n = length(nonblank($0))
    for (i = 0; i < n; i++) { src_file[k + i] = file; src_line[k + i] = line }
    k += n; raw_chars = k
    if (file != "") line++
    next
}
FNR == 1 { safe = 1 }
/^#line [0-9]+ "/ { next }
{
    s = nonblank($0)
    if (s != "" && src_file[j] != "" && (src_file[j] != out_file || src_line[j] != expect) &&
        safe) {
        printf "#line %d \"%s\"\n", src_line[j], src_file[j]
        expect = src_line[j]; out_file = src_file[j]
    }
    print
    expect++                                   # the compiler counts every line
    if (s != "") {
        j += length(s)
        safe = s ~ /([;{}:]|\*\/)$/ || s ~ /^#/
    }
}
END {
    if (j != raw_chars) {
        printf "relines: %s has %d characters other than white space, notangle's output %d: " \
               "clang-format changed more than white space\n", FILENAME, j, raw_chars > "/dev/stderr"
        exit 1
    }
}
