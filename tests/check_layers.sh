#!/bin/bash
# Check every #include "..." of the tangled code against the layer table: a file may
# include headers of its own layer and of lower ones only. One line per upward include
# or unlisted file, and exit 1; else one line saying how many includes were checked.
# Usage: tests/check_layers.sh [TABLE [DIR...]]   (default: tests/layers.txt tangled kernels)
table=${1:-tests/layers.txt}
shift
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=(tangled kernels)
[ -r "$table" ] || { echo "layers: cannot read $table" >&2; exit 2; }
files=()
for d in "${dirs[@]}"; do
    for f in "$d"/*.c "$d"/*.h "$d"/*.cu; do [ -e "$f" ] && files+=("$f"); done
done
[ ${#files[@]} -gt 0 ] || { echo "layers: no .c, .h or .cu files in ${dirs[*]}" >&2; exit 2; }
awk '
    FNR == NR {                                    # the table: layer name, then its files
        if ($0 ~ /^[ \t]*(#|$)/) next
        rank++; name[rank] = $1
        for (i = 2; i <= NF; i++) layer[$i] = rank
        next
    }
    FNR == 1 {
        file = FILENAME; sub(/.*\//, "", file); base = file; sub(/\.[a-z]+$/, "", base)
        if (!(base in layer)) { print "layers: " FILENAME " is not in the layer table" > "/dev/stderr"; bad++ }
    }
    /^[ \t]*#[ \t]*include[ \t]*"/ {
        inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
        ib = inc; sub(/.*\//, "", ib); sub(/\.[a-z]+$/, "", ib)
        checked++
        if (!(ib in layer)) { print "layers: " FILENAME " includes " inc ", which is not in the layer table" > "/dev/stderr"; bad++; next }
        if ((base in layer) && layer[ib] > layer[base]) {
            print "layers: " FILENAME " (" name[layer[base]] ") includes " inc " (" name[layer[ib]] "), a layer above its own" > "/dev/stderr"
            bad++
        }
    }
    END {
        if (bad) exit 1
        printf "layers: %d includes in %d files point down or across\n", checked, files
    }
' files="${#files[@]}" "$table" "${files[@]}"
