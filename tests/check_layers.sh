#!/bin/bash
# Check every #include "..." of the tangled code against the layers: a file's layer is its
# folder (tangled/LAYER/, or a folder the table gives the layer beside tangled/), and it may
# include headers of its own layer and of lower ones only. Prints one line per upward
# include, unknown header or file outside the layers, and exits 1; else one line of counts.
# Usage: tests/check_layers.sh [TABLE [ROOT]]   (default: tests/layers.txt tangled)
table=${1:-tests/layers.txt}
root=${2:-tangled}
[ -r "$table" ] || { echo "layers: cannot read $table" >&2; exit 2; }
[ -d "$root" ] || { echo "layers: no directory $root" >&2; exit 2; }
beside=$(dirname "$root")
files=()
while read -r layer extra; do
    case "$layer" in '#'* | '') continue ;; esac
    for d in "$root/$layer" ${extra:+"$beside/$extra"}; do
        [ -d "$d" ] || continue
        for f in "$d"/*.c "$d"/*.h "$d"/*.cu; do [ -e "$f" ] && files+=("$layer:$f"); done
    done
done < "$table"
stray=$(find "$root" -type f \( -name '*.c' -o -name '*.h' \) | while read -r f; do
    printf '%s\n' "${files[@]}" | grep -qxF -- "$(basename "$(dirname "$f")"):$f" || echo "$f"; done)
[ -z "$stray" ] || { printf 'layers: %s is in no layer of %s\n' $stray >&2; exit 1; }
[ ${#files[@]} -gt 0 ] || { echo "layers: no .c, .h or .cu files under $root" >&2; exit 2; }
printf '%s\n' "${files[@]}" | awk -F: -v table="$table" '
    BEGIN {                                       # the layers, bottom first
        while ((getline line < table) > 0) {
            if (line ~ /^[ \t]*(#|$)/) continue
            split(line, w, /[ \t]+/); rank[w[1]] = ++n
        }
    }
    { layer[$2] = $1; name = $2; sub(/.*\//, "", name); where[name] = $2; list[NR] = $2 }
    END {
        for (i = 1; i <= NR; i++) {
            f = list[i]; mine = layer[f]
            while ((getline line < f) > 0) {
                if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
                inc = line; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
                base = inc; sub(/.*\//, "", base); checked++
                if (!(base in where)) {
                    print "layers: " f " includes " inc ", which is in no layer" > "/dev/stderr"; bad++
                } else if (rank[layer[where[base]]] > rank[mine]) {
                    print "layers: " f " (" mine ") includes " inc " (" layer[where[base]] \
                          "), a layer above its own" > "/dev/stderr"; bad++
                }
            }
            close(f)
        }
        if (bad) exit 1
        printf "layers: %d includes in %d files point down or across\n", checked, NR
    }'
status=$?
# The model owns its memory (chapter 7, "Lending the model's memory"): no strategy assigns
# to the model's parameter or gradient pointers, or frees them; it asks the model.
reach=$(grep -nE '(\bm|->m)->(params|grads)[[:space:]]*=[^=]|layer_(params|grads)\[[^]]*\][[:space:]]*=[^=]|release\(([a-z_]*->)?m->(params|grads)\)' \
    "$root"/strategies/*.c 2>/dev/null)
if [ -n "$reach" ]; then
    printf 'layers: a strategy reaches into the model (use its lending calls):\n%s\n' "$reach" >&2
    exit 1
fi
[ "$status" = 0 ] && echo "layers: no strategy assigns or frees the model's parameters or gradients"
exit "$status"
