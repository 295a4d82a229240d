# Empty every \answer{...} of a chapter, for the students' handout: the body goes, its
# newlines stay, so every line after it keeps its number (the #line directives of tangled/
# point into the chapters, and the handout's make test checks them).
# Usage: awk -f scripts/strip_answers.awk chapters/NN.nw > NN.nw.new
BEGIN { depth = 0 }
{
    text = $0; out = ""
    while (text != "") {
        if (depth == 0) {
            i = index(text, "\\answer{")
            if (!i) { out = out text; text = ""; break }
            out = out substr(text, 1, i + 7); text = substr(text, i + 8); depth = 1; answers++
            continue
        }
        c = substr(text, 1, 1)
        if (c == "\\") { text = substr(text, 3); continue } # an escaped brace or any command
        if (c == "{") depth++
        else if (c == "}" && --depth == 0) out = out "}"
        text = substr(text, 2)
    }
    print out
}
END {
    if (depth) { printf "strip_answers: %s: an \\answer{ never closed\n", FILENAME > "/dev/stderr"; exit 1 }
}
