#!/usr/bin/env bash
# make book: every constant the prose states (\stated{NAME}{TEXT} in chapters/*.nw) is the
# one its source sets (book/constants.txt). One line per problem and exit 1; else a line that
# says how many were checked.
#
#   book/constants.sh CHAPTER.nw...
set -uo pipefail
cd "$(dirname "$0")/.."
declare -A want
fail=0
problem() { echo "book: $*" >&2; fail=1; }
while read -r name form file pattern; do
    [[ -z $name || $name == \#* ]] && continue
    values=$(sed -n "s/$pattern/\\1/p" "$file" 2>/dev/null)
    if [ "$(grep -c . <<<"$values")" != 1 ]; then
        problem "book/constants.txt: $name: $file sets it $(grep -c . <<<"$values") times (its pattern: $pattern), not once"
        continue
    fi
    case $form in
    n) want[$name]=$values ;;
    /1024) want[$name]=$((values / 1024)) ;;
    exp10) want[$name]=$(awk -v v="$values" 'BEGIN { e = int(log(v) / log(10) - (v < 1 ? 0.5 : -0.5)); if (10 ^ e != v + 0) exit 1; printf "$10^{%d}$", e }') ||
        { problem "book/constants.txt: $name: $values is not a power of ten"; continue; } ;;
    *) problem "book/constants.txt: $name: no form $form"; continue ;;
    esac
done <book/constants.txt
n=0
while IFS=$'\t' read -r where name text; do
    n=$((n + 1))
    if [ -z "${want[$name]+x}" ]; then
        problem "$where: \\stated{$name}: no such constant in book/constants.txt"
    elif [ "$text" != "${want[$name]}" ]; then
        problem "$where: \\stated{$name}{$text}, but $(awk -v n="$name" '$1 == n { print $3 }' book/constants.txt) sets ${want[$name]}"
    fi
done < <(awk '
    # Each \stated{NAME}{TEXT} of a line (TEXT may hold braces): FILE:LINE, NAME, TEXT.
    {
        rest = $0
        while ((i = index(rest, "\\stated{")) > 0) {
            rest = substr(rest, i + 8)
            j = index(rest, "}{"); if (!j) break
            name = substr(rest, 1, j - 1); rest = substr(rest, j + 2)
            depth = 1
            for (k = 1; k <= length(rest) && depth > 0; k++) {
                c = substr(rest, k, 1)
                if (c == "{") depth++; else if (c == "}") depth--
            }
            printf "%s:%d\t%s\t%s\n", FILENAME, FNR, name, substr(rest, 1, k - 2)
            rest = substr(rest, k)
        }
    }' "$@")
[ $fail = 0 ] || exit 1
echo "book: $n constants stated in the prose, each as its source sets it (book/constants.txt)"
