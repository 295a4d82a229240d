# A noweb filter, run after finduses: keep only the real uses of identifiers in the index.
# finduses marks every word of the code that matches a defined identifier; this drops the
# marks that fall in a comment or a string (a word like "copy" or "fill" in a sentence),
# after "." or "->" (a struct field such as dev->alloc is not the function alloc), and
# on main (every program has one). It also drops a definition repeated within one chunk
# (a signature and an @ %def line name the same function once), and fails (exit 1) when
# two chunks define one name, unless one of them is the other build of one function: the
# CUDA device's twin of a CPU function (chunks named "cuda ...", and the kernels'
# launchers), or the MPI transport's stand-in in a build without MPI.
function lex(s,    i, c, d) {
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1); d = substr(s, i, 2)
        if (state == "block") { if (d == "*/") { state = "code"; i++ } }
        else if (state == "str") { if (c == "\\") i++; else if (c == "\"") state = "code" }
        else if (state == "chr") { if (c == "\\") i++; else if (c == "'") state = "code" }
        else if (state == "line") { }
        else if (d == "/*") { state = "block"; i++ }
        else if (d == "//") { state = "line"; i++ }
        else if (c == "\"") state = "str"
        else if (c == "'") state = "chr"
    }
    tail = tail s
    sub(/^.*[^ \t]/, "&", tail)
    if (length(tail) > 8) tail = substr(tail, length(tail) - 7)
}
/^@begin code/ { incode = 1; state = "code"; tail = ""; delete defined }
/^@defn / { chunk = substr($0, 7) }
/^@end code/ { incode = 0 }
incode && /^@nl/ { if (state != "block") state = "code"; tail = "" }
incode && /^@text / { lex(substr($0, 7)) }
incode && /^@index use / {
    name = substr($0, 12); t = tail; sub(/[ \t]+$/, "", t)
    if (state != "code" || t ~ /(\.|->)$/ || name == "main") { dropped++; next }
}
/^@index defn / {
    name = substr($0, 13)
    if (name == "main" || (name in defined)) next
    defined[name] = 1
    twin = chunk ~ /^(cuda |Launch .* on a bounded grid|Stand-ins for a build without MPI)/
    if (!twin) { owners[name]++; where[name] = where[name] (where[name] == "" ? "" : ", ") "<<" chunk ">>" }
}
{ print }
END {
    printf "index: %d uses in comments, strings or fields left out\n", dropped > "/dev/stderr"
    for (name in owners)
        if (owners[name] > 1) {
            printf "index: %s is defined in %d chunks (%s): rename one, or the index merges them\n",
                   name, owners[name], where[name] > "/dev/stderr"
            bad = 1
        }
    exit bad
}
