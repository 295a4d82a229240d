# The book's grain: how its code is cut into chunks, and how much prose leads it.
# For every chapter: code chunks, how many are over 25 lines, the code lines that sit
# directly in [[file]] roots, and prose lines per code line; then the whole book.
# Usage: awk -f book/grain.awk chapters/*.nw   (make book prints it)
function flush() {
    if (name == "") return
    chunks[ch]++; all_chunks++
    if (lines > 25) { big[ch]++; all_big++ }
    if (name ~ /^\[\[/) { root[ch] += lines; all_root += lines }
    code[ch] += lines; all_code += lines
    name = ""
}
FNR == 1 { flush(); ch = FILENAME; sub(/.*\//, "", ch); sub(/\.nw$/, "", ch); order[++n] = ch }
/^<<.*>>=$/ { flush(); name = substr($0, 3, length($0) - 5); lines = 0; next }
/^@( |$)/ { flush(); next }
name != "" { lines++; if (length($0) > 96) { wide++; widest[FILENAME ":" FNR] = length($0) } next }
/^[ \t]*$/ || /^\\(begin|end|label|section|subsection|chapter)/ || /^%/ { next }
{ prose[ch]++; all_prose++ }
END {
    flush()
    printf "grain: %-16s %6s %9s %10s %11s\n", "chapter", "chunks", ">25 lines", "root code", "prose/code"
    for (i = 1; i <= n; i++) {
        c = order[i]
        printf "grain: %-16s %6d %8.0f%% %9.0f%% %11.2f\n", c, chunks[c], 100 * big[c] / (chunks[c] ? chunks[c] : 1),
               100 * root[c] / (code[c] ? code[c] : 1), prose[c] / (code[c] ? code[c] : 1)
    }
    printf "grain: %-16s %6d %8.0f%% %9.0f%% %11.2f\n", "book", all_chunks, 100 * all_big / all_chunks,
           100 * all_root / all_code, all_prose / all_code
    printf "grain: %d code lines wider than 96 columns (clang-format's limit; make book fails only where a line runs past the page, which LaTeX reports)\n", wide
}
