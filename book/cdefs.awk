# A noweb filter that marks C definitions for the identifier index: function
# definitions (not prototypes, not calls) and #defines that start a line of a
# code chunk. noweb's own `-autodefs c` takes every line that starts in column 0
# for a global, but a chunk's body starts in column 0 wherever it is used, so it
# indexed local variables as definitions. Types are marked with `@ %def`.
#   noweave -filter 'awk -f book/cdefs.awk' -index ...
BEGIN { keyword = "^(return|if|else|for|while|switch|case|do|sizeof|goto)$" }
/^@begin code/ { incode = 1; pending = "" }
/^@end code/   { incode = 0; pending = "" }
{ print }
incode && /^@text / {
    line = substr($0, 7)
    if (pending != "") {                  # inside a signature that spans lines
        if (line ~ /\);[ \t]*$/) pending = ""
        else if (line ~ /\)[ \t]*(\{.*)?$/) { print "@index defn " pending; pending = "" }
        next
    }
    if (match(line, /^#define[ \t]+[A-Za-z_][A-Za-z0-9_]*/)) {
        name = substr(line, RSTART, RLENGTH); sub(/^#define[ \t]+/, "", name)
        if (name ~ /^DPS_.*_H$/) next     # include guards
        print "@index defn " name
        next
    }
    # [qualifiers] type [*] name( ... : a type word, then the name right before '('
    if (match(line, /^([A-Za-z_][A-Za-z0-9_]*[ \t]+|extern "C"[ \t]+)*[A-Za-z_][A-Za-z0-9_]*[ \t*]+\**[A-Za-z_][A-Za-z0-9_]*\(/)) {
        head = substr(line, RSTART, RLENGTH - 1)
        if (head ~ /[=,;]/) next
        name = head; sub(/^.*[ \t*]/, "", name)
        first = head; sub(/[ \t*].*$/, "", first)
        if (name ~ keyword || first ~ keyword || name == "main") next # every program has a main
        if (line ~ /\);[ \t]*$/) next                      # a prototype
        if (line ~ /\)[ \t]*(\{.*)?$/) print "@index defn " name
        else if (line !~ /\)/) pending = name              # the signature goes on
        else if (line ~ /\{.*\}[ \t]*$/) print "@index defn " name   # one-line function
    }
}
