#!/bin/bash
# The README's map of the code: for every tangled file, by layer (tests/layers.txt), the
# chapters whose chunks it is assembled from. Prints a Markdown table; `make check-tangle`
# compares it with the README's, between the lines <!-- file map --> and <!-- end -->, and
# fails when a file comes from no chapter. The chapters are the files given, in their order.
# Usage: tests/file_map.sh [CHAPTERS...]   (default: chapters/*.nw)
[ $# -gt 0 ] || set -- chapters/*.nw
awk -v layers=tests/layers.txt '
    FNR == 1 { ch = FILENAME; sub(/.*\//, "", ch); sub(/-.*/, "", ch); sub(/^0/, "", ch)
               ord[++n_ord] = ch }
    /^<<.*>>=$/ { name = substr($0, 3, length($0) - 5); code = 1; defs[name] = defs[name] " " ch; next }
    /^@( |$)/ { code = 0; next }
    code {
        line = $0
        while (match(line, /<<[^>]+>>/)) {
            used = substr(line, RSTART + 2, RLENGTH - 4)
            kids[name] = kids[name] SUBSEP used
            line = substr(line, RSTART + RLENGTH)
        }
    }
    function visit(n,    k, parts, i, c, cs) {
        if (n in seen) return
        seen[n] = 1
        split(defs[n], cs, " ")
        for (c in cs) if (cs[c] != "") from[cs[c]] = 1
        split(kids[n], parts, SUBSEP)
        for (i in parts) if (parts[i] != "") visit(parts[i])
    }
    END {
        for (k = 1; k <= n_ord; k++) # the appendices A1, A2, ... are A, B, ...
            if (ord[k] ~ /^A[0-9]+$/) label[ord[k]] = substr("ABCDEFGHIJ", substr(ord[k], 2) + 0, 1)
        while ((getline l < layers) > 0) {
            if (l ~ /^[ \t]*(#|$)/) continue
            split(l, w, /[ \t]+/); nl++; lay[nl] = w[1]; extra[nl] = w[2]
        }
        print "| layer | file | chapters |"
        print "| --- | --- | --- |"
        for (i = 1; i <= nl; i++) {
            cmd = "cd tangled/" lay[i] " 2>/dev/null && ls"
            n = 0; delete files
            while ((cmd | getline f) > 0) files[++n] = lay[i] "/" f
            close(cmd)
            if (extra[i] != "") {
                cmd = "cd " extra[i] " 2>/dev/null && ls"
                while ((cmd | getline f) > 0) files[++n] = f
                close(cmd)
            }
            for (j = 1; j <= n; j++) {
                delete seen; delete from
                visit("[[" files[j] "]]")
                out = ""
                for (k = 1; k <= n_ord; k++)
                    if (ord[k] in from) out = out (out == "" ? "" : ", ") (ord[k] in label ? label[ord[k]] : ord[k])
                shown = files[j]; if (extra[i] != "") { if (files[j] !~ /\//) shown = extra[i] "/" files[j] }
                if (out == "") { print "file_map: " shown " comes from no chapter" > "/dev/stderr"; bad = 1 }
                print "| " (j == 1 ? lay[i] : "") " | `" (shown ~ /^kernels\// ? shown : "tangled/" shown) "` | " out " |"
            }
        }
        exit bad
    }
' "$@"
